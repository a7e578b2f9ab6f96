"""The acceptance, end to end through the real CLI and the fake model: a plugin with commands,
an agent type, a skill with a script, hooks and an MCP server, in a local git marketplace
(a file:// URL); `agent plugin marketplace add`, `install --yes`, used by `agent run`, then
`uninstall`: no command, no server process, no settings entry left. And a workspace not yet
trusted whose `.agent/settings.json` enables a plugin with a hook: the hook runs only once the
workspace is trusted."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e.helpers import REPO
from tests.e2e.mcp_support import SERVER
from tests.e2e.plugin_store_support import agent, config, settings
from tests.fake_model import FakeAnthropic, system_contains
from tests.plugin_fixtures import (
    ROOT,
    entry,
    full_plugin,
    git_commit,
    group,
    handler,
    hooks_file,
    marketplace,
    tool_results,
    write_tree,
)

GUARD = """#!/bin/sh
if grep -q "touch blocked" ; then echo "blocked by kit from $CLAUDE_PLUGIN_ROOT" >&2; exit 2; fi
exit 0
"""
HELLO = "---\ndescription: Greet someone\n---\n\nHello $ARGUMENTS from {r}.\n"
REVIEWER = "You are reviewer. Review what you are given and answer briefly."
WHERE = "mcp__plugin_kit_notes__where"


def market(tmp_path: Path, hooks: dict[str, list[dict[str, Any]]]) -> str:
    """A git marketplace `team` holding `kit`; its file:// URL."""
    root = tmp_path / "market"
    server = {
        "command": sys.executable,
        "args": [str(SERVER), "--name", "notes"],
        "env": {"MCP_TEST_ROOT": ROOT, "MCP_TEST_STARTS": str(tmp_path / "mcp.pids")},
    }
    kit = full_plugin(root / "plugins" / "kit", mcp_server=server)
    write_tree(kit, {
        "commands/hello.md": HELLO.format(r=ROOT),
        "hooks/hooks.json": hooks_file(hooks),
        "hooks/guard.sh": GUARD,
    }, executable=["hooks/guard.sh"])  # fmt: skip
    marketplace(root, "team", [entry("kit", "./plugins/kit")])
    git_commit(root, "kit 1.0.0")
    return root.as_uri()


def env_of(fake_env: dict[str, str], allow: list[str]) -> dict[str, str]:
    env = {**fake_env, "PYTHONPATH": str(REPO), "AGENT_LSP_BUILTIN": "0"}
    config(env).mkdir(parents=True, exist_ok=True)
    (config(env) / "settings.json").write_text(json.dumps({"permissions": {"allow": allow}}))
    return env


def ok(proc: Any) -> str:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return str(proc.stdout)


def alive(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and " Z " not in stat.read_text()


def test_installed_from_a_git_marketplace_used_then_uninstalled_leaves_nothing(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    hooks = {"PreToolUse": [group(handler(f'sh "{ROOT}/hooks/guard.sh"'), matcher="Bash")]}
    url = market(tmp_path, hooks)
    env = env_of(fake_env, ["bash(touch *)", "bash(sleep *)", WHERE])
    work = tmp_path / "work"
    work.mkdir()
    ok(agent(env, work, "plugin", "marketplace", "add", url))
    ok(agent(env, work, "plugin", "install", "kit@team", "--yes"))

    fake_model.script.text("Greeted.")
    ok(agent(env, work, "run", "-p", "/kit:hello Ada"))
    (greeting,) = fake_model.bodies()
    said = json.dumps(greeting["messages"])
    assert "Hello Ada from " in said
    assert "/plugins/installed/" in said
    assert "CLAUDE_PLUGIN_ROOT" not in said

    fake_model.route(system_contains(REVIEWER)).text('{"conclusion": "fine", "confidence": "high"}')
    waiting = fake_model.route(lambda body: WHERE not in json.dumps(body.get("tools")))
    for _ in range(100):  # its server starts in the background: the model waits for its tool
        waiting.tool_use("bash", command="sleep 0.2")
    script = fake_model.script
    script.tool_use(WHERE).tool_use("skill", name="kit:lint", file="scripts/check.sh")
    script.tool_use("bash", command="touch blocked.txt")
    script.tool_use("task", description="review", prompt="review it", agent_type="kit:reviewer")
    script.text("All used.")
    ok(agent(env, work, "run", "-p", "use the kit"))
    last = fake_model.bodies()[-1]
    where, check, blocked, review = tool_results(last)[-4:]
    assert "'MCP_TEST_ROOT': '" in where
    assert "/plugins/installed/" in where
    assert "wc -l" in check  # the skill's script, read beside its SKILL.md
    assert "blocked by kit from " in blocked
    assert not (work / "blocked.txt").exists()
    assert "fine" in review

    ok(agent(env, work, "plugin", "uninstall", "kit@team"))
    commands = json.loads(ok(agent(env, work, "commands", "--json")))
    assert not [c for c in commands if c.get("plugin") == "kit"]
    assert "plugin_kit_notes" not in agent(env, work, "mcp", "list").stdout
    assert "kit@team" not in json.dumps(settings(config(env) / "settings.json"))
    pids = [int(line) for line in (tmp_path / "mcp.pids").read_text().split()]
    assert pids
    assert not any(alive(pid) for pid in pids)


def test_a_workspace_plugin_hook_waits_for_agent_trust(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    marker = tmp_path / "hook-ran"
    hooks = {"SessionStart": [group(handler(f'touch "{marker}"'))]}
    url = market(tmp_path, hooks)
    env = env_of(fake_env, [])
    work = tmp_path / "work"
    work.mkdir()
    ok(agent(env, work, "plugin", "marketplace", "add", url))
    ok(agent(env, work, "plugin", "install", "kit@team", "--scope", "project", "--yes"))
    enabled = settings(work / ".agent" / "settings.json")["plugins"]["enabled"]
    assert enabled == {"kit@team": True}
    assert "kit@team" not in json.dumps(settings(config(env) / "settings.json"))

    fake_model.script.text("Untrusted.").text("Trusted.")
    ok(agent(env, work, "run", "-p", "hello"))
    assert not marker.exists()  # the workspace's plugin list waits for trust
    ok(agent(env, work, "trust"))
    ok(agent(env, work, "run", "-p", "hello"))
    assert marker.exists()
