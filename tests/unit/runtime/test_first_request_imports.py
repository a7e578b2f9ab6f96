"""What `agent run -p hi` leaves unimported until its first request is out (issue 58): code only a
later step needs (a task's subagent runner and notes store, the language servers' service and
manager, the MCP config reader in a workspace without MCP files, web_fetch's fetching) is
imported when that step comes, while the first request still offers every tool (`task`,
`recall`, `diagnostics`, `web_fetch`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent_cli.ext.mcp import servers as mcp_servers
from agent_cli.runtime.extensions.builtins import BUILTINS
from agent_cli.runtime.trust_items import widening_items

MCP_FILES = next(d.trusts for d in BUILTINS if d.name == "mcp")  # what asks for its import

REPO = Path(__file__).resolve().parents[3]

PROBE = """
import io, json, os, sys
from tests.fake_model import FakeAnthropic

snap = {}

class Snapshot(FakeAnthropic):
    def answer(self, raw_path, headers, raw):
        if not snap and raw_path.startswith("/v1/messages"):
            snap["modules"] = sorted(m for m in sys.modules if m.startswith("agent_cli"))
            snap["tools"] = [t["name"] for t in json.loads(raw)["tools"]]
        return super().answer(raw_path, headers, raw)

fake = Snapshot().start()
fake.script.text("hello")
os.environ["ANTHROPIC_BASE_URL"] = fake.base_url
from agent_cli.cli.entry import run_in_process

out, sys.stdout = sys.stdout, io.StringIO()
code = run_in_process(["run", "-p", "hi"])
sys.stdout = out
fake.stop()
print(json.dumps({"code": code, **snap}))
"""

LATER = [
    "agent_cli.subagent.runner",  # made when a task first runs
    "agent_cli.subagent.store",  # a task's notes, recall's search of them
    "agent_cli.subagent.note_render",
    "agent_cli.ext.lsp.manager",  # the first edit a server checks, or /lsp
    "agent_cli.ext.lsp.server",
    "agent_cli.ext.mcp.servers",  # a workspace that names MCP servers
    "agent_cli.tools.shell.git_guard",  # the first command
    "agent_cli.memory.generator",  # an episode written
    "agent_cli.memory.episode_store",  # an episode written, a recall, an index to show
    "agent_cli.memory.recall_notes",  # a recall
    "agent_cli.tools.rg",  # a glob or a grep
    "agent_cli.ext.lsp.plugins",  # plugins enabled (none are here)
    "agent_cli.runtime.extensions.bundle_port",
    "agent_cli.runtime.bundles",
    "agent_cli.cli.chat_start",  # `agent chat`
    "agent_cli.cli.worktree_session",  # --worktree
    "agent_cli.cli.failures",  # a failure's line
    "agent_cli.core.files.private_file",  # a trust granted
    "agent_cli.loop.user_input",  # a chat's typed `!command`, `@path`
    "agent_cli.ext.cost",  # chat's /cost, or the run's JSON result at its end
    "agent_cli.ext.lsp.service",  # the first edit a server checks
    "agent_cli.ext.lsp.builtins",
    "agent_cli.ext.lsp.tool",  # the first diagnostics call
    "agent_cli.ext.sandbox.plugin",  # the first command
    "agent_cli.ext.web.fetch",  # the first fetch
    "agent_cli.ext.jobs.tools",  # the first bash_output or bash_kill
    "agent_cli.ext.checkpoints.conversation",  # a rewind, a turn's end
    "agent_cli.memory.episode",  # an episode written, a recall
    "agent_cli.subagent.profile",  # a task's type
    "agent_cli.subagent.isolating",  # a task in a worktree
    "agent_cli.core.outside.groups",  # the first command's process group
    "agent_cli.policy.host_review",  # auto mode's first sandboxed host
    "agent_cli.core.text.lenient_json",  # a reply's tool call, a call's input
    "agent_cli.core.text.lenient_values",
    "agent_cli.core.thinking_rules",  # a request validated (the test server's check)
    "agent_cli.core.text.money",  # a goal's status line
    "agent_cli.policy.call_rules",  # the first call's permission check
    "agent_cli.policy.patterns",  # the first call's check (its subject, the patterns)
    "agent_cli.tools.shell.rules",  # the first call's check, the first command
    "agent_cli.tools.shell.deny",
    "agent_cli.tools.shell.bash_jobs",  # the first command asks for the port "jobs"
    "agent_cli.tools.host_rules",  # the first fetch, or a fetch's check
    "agent_cli.loop.rounds",  # a reply with tool calls
    "agent_cli.core.settings.narrowing",  # an untrusted workspace's own settings
    "agent_cli.core.settings.hosts",  # settings that name the sandbox's hosts
    "agent_cli.policy.trust",  # a workspace with something only trust lets in
    "agent_cli.core.settings.layers",  # a bad setting's error names its file
]


def first_request(tmp_path: Path) -> dict[str, object]:
    """The probe run in a fresh interpreter, in an empty workspace, with a built-in language
    server's program (`ruff`, a stand-in that is never started) on PATH."""
    bin_dir, workspace, home = tmp_path / "bin", tmp_path / "ws", tmp_path / "home"
    for folder in (bin_dir, workspace, home):
        folder.mkdir()
    ruff = bin_dir / "ruff"
    ruff.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    ruff.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "ANTHROPIC_"))}
    env.update(
        HOME=str(home),
        NO_COLOR="1",
        AGENT_NO_SERVER="1",
        ANTHROPIC_API_KEY="sk-test-" + "k" * 32,
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(REPO),
    )
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=workspace, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_later_steps_code_waits_and_every_tool_is_still_offered(tmp_path: Path) -> None:
    found = first_request(tmp_path)
    assert found["code"] == 0
    modules = found["modules"]
    assert isinstance(modules, list)
    assert "agent_cli.ext.lsp" in modules  # asked: a built-in server is on PATH
    assert [m for m in LATER if m in modules] == []
    tools = found["tools"]
    assert isinstance(tools, list)
    assert {"task", "recall", "diagnostics", "bash", "web_fetch", "bash_output"} <= set(tools)


def test_mcp_files_are_the_ones_the_config_reader_reads() -> None:
    assert set(MCP_FILES) == {mcp_servers.PROJECT_FILE, str(mcp_servers.WORKSPACE_SETTINGS)}


def test_servers_named_by_either_file_still_need_trust(tmp_path: Path) -> None:
    assert [i for i in widening_items(tmp_path) if i.key.startswith("mcp")] == []
    spec = {"mcpServers": {"a": {"command": "/bin/echo", "args": ["a"]}}}
    (tmp_path / ".mcp.json").write_text(json.dumps(spec), encoding="utf-8")
    first = [i.description for i in widening_items(tmp_path)]
    (tmp_path / ".mcp.json").unlink()
    (tmp_path / ".agent").mkdir()
    settings = {"mcp_servers": {"b": {"command": "/bin/echo", "args": ["b"]}}}
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    second = [i.description for i in widening_items(tmp_path)]
    assert any("/bin/echo a" in d for d in first), first
    assert any("/bin/echo b" in d for d in second), second
