"""`agent mcp …`, `agent trust` and `agent run` with MCP servers, as a user runs them.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.mcp_support import SERVER
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli


def project_file(workspace: Path, *extra: str) -> None:
    server = {
        "command": sys.executable,
        "args": [str(SERVER), *extra],
        "env": {"MCP_TEST_WHO": "${MCP_TEST_UNSET_VARIABLE:-fallback}"},
        "description": "an unknown field, as real files have",
    }
    data = {"_comment": "extra top-level key", "mcpServers": {"proj": server}}
    (workspace / ".mcp.json").write_text(json.dumps(data), encoding="utf-8")


def listing(env: dict[str, str], workspace: Path) -> dict[str, dict[str, Any]]:
    proc = run_cli(env, workspace, "mcp", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    return {s["name"]: s for s in json.loads(proc.stdout)}


def until_offered(fake_model: FakeAnthropic, tool: str, then: dict[str, Any]) -> None:
    """Replies with a harmless call until `tool` is offered (servers start in the background,
    so it comes at some later request), then calls `then`, then ends the turn."""
    state = {"called": False}
    fake_model.script.steps.clear()  # what an earlier run left unused

    def step(body: dict[str, Any]) -> Any:
        names = {t["name"] for t in body.get("tools", [])}
        if state["called"]:
            return fake_model.script.__class__().text("done")
        if tool in names:
            state["called"] = True
            return fake_model.script.__class__().tool_use(tool, then)
        return fake_model.script.__class__().tool_use("glob", {"pattern": "*.none"}, delay=0.1)

    fake_model.script.respond(step, times=90)


@pytest.mark.timeout(240)
def test_add_list_trust_run_and_a_changed_command_line(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    python = sys.executable
    added = run_cli(fake_env, workspace, "mcp", "add", "testsrv", "--", python, str(SERVER))
    assert added.returncode == 0, added.stderr
    assert "added testsrv" in added.stdout
    project_file(workspace)

    before = listing(fake_env, workspace)
    assert before["testsrv"]["state"] == "ready"
    assert "echo" in before["testsrv"]["tools"]
    assert before["proj"]["state"] == "not trusted"
    assert before["proj"]["tools"] == []

    until_offered(fake_model, "mcp__testsrv__echo", {"text": "x"})
    untrusted = run_cli(
        fake_env, workspace, "run", "-p", "go", "--permission-mode", "bypass", "--max-turns", "90"
    )
    assert untrusted.returncode == 0, untrusted.stderr
    assert "mcp server 'proj'" in untrusted.stderr
    assert "run `agent trust`" in untrusted.stderr
    offered = {t["name"] for body in fake_model.bodies() for t in body.get("tools", [])}
    assert not any(name.startswith("mcp__proj__") for name in offered)

    trusted = run_cli(fake_env, workspace, "trust")
    assert trusted.returncode == 0, trusted.stderr
    shown = f"mcp server proj: MCP_TEST_WHO=${{MCP_TEST_UNSET_VARIABLE:-fallback}} {python}"
    assert shown in trusted.stdout  # the command line as written, variables unexpanded

    after = listing(fake_env, workspace)
    assert after["proj"]["state"] == "ready"
    assert "where" in after["proj"]["tools"]
    assert after["testsrv"]["state"] == "ready"

    until_offered(fake_model, "mcp__proj__where", {})
    ran = run_cli(
        fake_env, workspace, "run", "-p", "go", "--permission-mode", "bypass", "--max-turns", "90"
    )
    assert ran.returncode == 0, ran.stderr
    results = [
        b
        for body in fake_model.bodies()
        for m in body["messages"][-1:]
        for b in (m["content"] if isinstance(m["content"], list) else [])
        if b.get("type") == "tool_result" and "MCP_TEST_WHO" in str(b.get("content"))
    ]
    assert "'MCP_TEST_WHO': 'fallback'" in str(results[0]["content"])  # ${VAR:-default}

    project_file(workspace, "--tools", "1")  # the repository changed the command line
    changed = run_cli(fake_env, workspace, "mcp", "get", "proj")
    assert "proj: not trusted" in changed.stdout
    assert "--tools 1" in changed.stdout  # the launch line shown is the new one
    assert (
        "command line, headers or environment changed since this workspace was trusted"
        in changed.stderr
    )

    removed = run_cli(fake_env, workspace, "mcp", "remove", "testsrv")
    assert removed.returncode == 0
    saved = json.loads((Path(fake_env["HOME"]) / ".config" / "agent" / "mcp.json").read_text())
    assert saved == {"mcpServers": {}}


def test_add_http_server_and_bad_input(fake_env: dict[str, str], tmp_path: Path):
    added = run_cli(
        fake_env,
        tmp_path,
        "mcp",
        "add",
        "--transport",
        "http",
        "gh",
        "https://example.invalid/mcp",
        "--header",
        "Authorization: Bearer x",
    )
    assert added.returncode == 0, added.stderr
    saved = json.loads((Path(fake_env["HOME"]) / ".config" / "agent" / "mcp.json").read_text())
    assert saved["mcpServers"]["gh"] == {
        "type": "http",
        "url": "https://example.invalid/mcp",
        "headers": {"Authorization": "Bearer x"},
    }
    bad = run_cli(fake_env, tmp_path, "mcp", "add", "-t", "http", "x", "a", "b")
    assert bad.returncode == 2
    assert "takes one URL" in bad.stderr
    assert "Traceback" not in bad.stderr
    missing = run_cli(fake_env, tmp_path, "mcp", "remove", "nope")
    assert missing.returncode == 2
    assert "no server named 'nope'" in missing.stderr
