"""What an enabled plugin bundles joins what the workspace has: the real CLI, the real SDK, the
fake model. A test-only extension package (tests/plugin_use_ext.py) answers the port
`"plugin_bundles"` with Bundles over a hand-made plugin folder (tests/plugin_fixtures.py), so
project files, MCP and the language servers reach it exactly as they reach the plugins
extension's answer: through the port, never by importing it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.mcp_support import SERVER
from tests.extension_packages import pythonpath
from tests.fake_model import FakeAnthropic, system_contains
from tests.plugin_fixtures import (
    ROOT,
    full_plugin,
    group,
    handler,
    hooks_file,
    tool_results,
    write_tree,
)
from tests.plugin_use_ext import VARIABLE, bundles_file, install_bundles

HELLO = (
    "---\ndescription: Greet someone\nargument-hint: [name]\n---\n\n"
    "Hello $ARGUMENTS; read {r}/notes.txt.\n"
)
GUARD = """#!/bin/sh
echo "$CLAUDE_PLUGIN_ROOT" > "$CLAUDE_PLUGIN_DATA/guard-root.txt"
if grep -q "touch blocked" ; then echo "blocked by kit" >&2; exit 2; fi
exit 0
"""
LINT = (
    "---\nname: lint\ndescription: Lint files by counting their lines\n---\n\n"
    "Run {r}/skills/lint/scripts/check.sh on each file.\n"
)
REVIEWER = "You are reviewer. Review what you are given and answer briefly."


def plugin(tmp_path: Path) -> Path:
    """The fixtures' full plugin, its command, skill and hooks speaking of its root, its MCP
    server the suite's test server (its pid written where the test finds it)."""
    root = tmp_path / "plugins" / "kit"
    server = {
        "command": sys.executable,
        "args": [str(SERVER), "--name", "notes"],
        "env": {"MCP_TEST_ROOT": f"{ROOT}/servers", "MCP_TEST_STARTS": str(tmp_path / "mcp.pids")},
    }
    full_plugin(root, mcp_server=server)
    hooks = {
        "PreToolUse": [group(handler(f'sh "{ROOT}/hooks/guard.sh"'), matcher="Bash")],
        "SessionStart": [group(handler('echo "kit context from $CLAUDE_PLUGIN_ROOT"'))],
    }
    write_tree(root, {
        "commands/hello.md": HELLO.format(r=ROOT),
        "skills/lint/SKILL.md": LINT.format(r=ROOT),
        "hooks/hooks.json": hooks_file(hooks),
        "hooks/guard.sh": GUARD,
    })  # fmt: skip
    return root


@pytest.fixture
def env(fake_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    install_bundles(site)
    root = plugin(tmp_path)
    listed = bundles_file(tmp_path / "bundles.json", {"kit": root})
    config = Path(fake_env["HOME"]) / ".config" / "agent"
    config.mkdir(parents=True)
    allow = ["bash(touch *)", "bash(sleep *)", "mcp__plugin_kit_notes__where"]
    settings = {"permissions": {"allow": allow}, "lsp": {"builtin": False}}
    (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return {
        **fake_env,
        "PYTHONPATH": pythonpath(site),
        VARIABLE: str(listed),
        "AGENT_LSP_BUILTIN": "0",
    }


def agent(env: dict[str, str], workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_cli", *args],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip


def workspace(tmp_path: Path) -> Path:
    """A workspace that asks for project files and MCP by files of its own (an empty commands
    folder, an `.mcp.json` without servers): the test's package answers the port, and what
    wakes the three for an installed plugin (asked.py's `plugins`) is the store's file, proven
    in tests/unit/plugins/test_use_asked.py."""
    found = tmp_path / "work"
    (found / ".claude" / "commands").mkdir(parents=True, exist_ok=True)
    (found / ".mcp.json").write_text('{"mcpServers": {}}', encoding="utf-8")
    return found


def user_text(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"])


def kit_root(tmp_path: Path) -> str:
    return str(tmp_path / "plugins" / "kit")


def test_a_plugin_command_runs_namespaced_and_bare_with_its_root_in_place(
    fake_model: FakeAnthropic, env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("Greeted.").text("Greeted again.")
    ws = workspace(tmp_path)
    first = agent(env, ws, "run", "-p", "/kit:hello Ada")
    second = agent(env, ws, "run", "-p", "/hello Bob")  # no other command is called hello
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    one, two = fake_model.bodies()
    assert f"Hello Ada; read {kit_root(tmp_path)}/notes.txt." in user_text(one)
    assert f"Hello Bob; read {kit_root(tmp_path)}/notes.txt." in user_text(two)
    assert "CLAUDE_PLUGIN_ROOT" not in user_text(one)


def test_the_model_is_offered_the_plugin_skill_and_reads_it(
    fake_model: FakeAnthropic, env: dict[str, str], tmp_path: Path
):
    script = fake_model.script
    script.tool_use("skill", name="kit:lint").tool_use(
        "skill", name="kit:lint", file="scripts/check.sh"
    )
    script.text("Linted.")
    proc = agent(env, workspace(tmp_path), "run", "-p", "lint the files")
    assert proc.returncode == 0, proc.stderr
    first, *_, last = fake_model.bodies()
    assert "- kit:lint [folder lint]: Lint files by counting their lines" in json.dumps(
        first["system"]
    )
    loaded, script_text = tool_results(last)
    assert f"Run {kit_root(tmp_path)}/skills/lint/scripts/check.sh on each file." in loaded
    assert "wc -l" in script_text  # the file beside the skill, read through the same tool


def test_task_runs_the_plugin_agent_type(
    fake_model: FakeAnthropic, env: dict[str, str], tmp_path: Path
):
    note = '{"conclusion": "looks fine", "confidence": "high"}'
    fake_model.route(system_contains(REVIEWER)).text(note)
    script = fake_model.script
    script.tool_use("task", description="review", prompt="review it", agent_type="kit:reviewer")
    script.text("Reviewed.")
    proc = agent(env, workspace(tmp_path), "run", "-p", "get it reviewed")
    assert proc.returncode == 0, proc.stderr
    bodies = fake_model.bodies()
    assert "kit:reviewer" in json.dumps(bodies[0]["tools"])  # task's listing of types
    assert [b for b in bodies if system_contains(REVIEWER)(b)], "the reviewer never ran"
    assert "looks fine" in tool_results(bodies[-1])[0]


def test_plugin_hooks_run_with_the_plugin_environment(
    fake_model: FakeAnthropic, env: dict[str, str], tmp_path: Path
):
    ws = workspace(tmp_path)
    fake_model.script.tool_use("bash", command="touch blocked.txt").tool_use(
        "bash", command="touch allowed.txt"
    ).text("Done.")
    proc = agent(env, ws, "run", "-p", "make two files")
    assert proc.returncode == 0, proc.stderr
    bodies = fake_model.bodies()
    assert f"kit context from {kit_root(tmp_path)}" in user_text(bodies[0])  # SessionStart
    assert not (ws / "blocked.txt").exists()  # PreToolUse exit 2 stopped it
    assert "blocked by kit" in tool_results(bodies[1])[0]
    assert (ws / "allowed.txt").exists()
    data = tmp_path / "plugins" / "kit-data" / "guard-root.txt"
    assert data.read_text().strip() == kit_root(tmp_path)  # CLAUDE_PLUGIN_ROOT, in its data


def alive(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and " Z " not in stat.read_text()


def test_the_plugin_mcp_server_is_offered_and_gone_after_the_run(
    fake_model: FakeAnthropic, env: dict[str, str], tmp_path: Path
):
    where = "mcp__plugin_kit_notes__where"
    waiting = fake_model.route(lambda body: where not in json.dumps(body.get("tools")))
    for _ in range(100):  # the server starts in the background: the model waits for its tool
        waiting.tool_use("bash", command="sleep 0.2")
    fake_model.script.tool_use(where).text("Found.")
    proc = agent(env, workspace(tmp_path), "run", "-p", "where is the server")
    assert proc.returncode == 0, proc.stderr
    *_, last = fake_model.bodies()
    assert f"'MCP_TEST_ROOT': '{kit_root(tmp_path)}/servers'" in tool_results(last)[-1]
    pids = [int(line) for line in (tmp_path / "mcp.pids").read_text().split()]
    assert pids
    assert not any(alive(pid) for pid in pids)


def test_the_listings_name_the_plugin(env: dict[str, str], tmp_path: Path):
    ws = workspace(tmp_path)
    listed = json.loads(agent(env, ws, "commands", "--json").stdout)
    (hello,) = [r for r in listed if r["name"] == "kit:hello"]
    assert hello["plugin"] == "kit"
    assert hello["scope"] == "plugin"
    assert hello["needs_trust"] == []
    assert "plugin kit: " in agent(env, ws, "agents").stdout
    assert "kit:lint" in agent(env, ws, "skills").stdout
    mcp = agent(env, ws, "mcp", "list")
    assert "plugin_kit_notes  ready  9 tools  (plugin kit)" in mcp.stdout, mcp.stderr
    lsp = agent(env, ws, "lsp", "status")
    assert "kit:fixture  .fx  `fixture-ls --stdio`  [plugin kit]" in lsp.stdout, lsp.stderr
    assert os.environ.get(VARIABLE) is None  # the tests' own process never had it
