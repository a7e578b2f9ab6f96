"""MCP in the real `agent chat` (a pseudo-terminal, 80x24 then wide): the status line counts the
ready server, `@` completes its resources and `/` its prompts, `/mcp reconnect` starts it
again, and Ctrl-C during one of its calls cancels the call on the server, the session going
on."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.mcp_support import stdio_spec
from tests.e2e.pty_screen import CTRL_C, ChatTerm
from tests.fake_model import FakeAnthropic


def test_status_completion_reconnect_and_ctrl_c_during_a_call(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    mark, starts = tmp_path / "mark.txt", tmp_path / "starts.txt"
    config = Path(fake_env["HOME"]) / ".config" / "agent"
    config.mkdir(parents=True)
    env = {"MCP_TEST_MARK": str(mark), "MCP_TEST_STARTS": str(starts)}
    server = {**stdio_spec(), "env": env}
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {"testsrv": server}}))
    allow = {"permissions": {"allow": ["mcp__testsrv__*"]}}  # a glob rule: no question
    (config / "settings.json").write_text(json.dumps(allow))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_model.script.tool_use("mcp__testsrv__slow", seconds=60).text("still here")
    term = ChatTerm(fake_env, workspace, columns=80, lines=24)
    try:
        term.wait_for("mcp 1/1")
        term.send("see @tes")
        term.send("\t")
        term.wait_for("testsrv:docs://readme")
        term.send("\x15")  # Ctrl-U: the line is cleared, nothing sent
        term.send("/mcp__te")
        term.send("\t")
        term.wait_for("/mcp__testsrv__review")  # the server's prompt, as a command
        term.send("\x15")
        term.type("/mcp reconnect testsrv")
        term.wait_for("testsrv: ready,")
        assert len(starts.read_text().split()) == 2  # a second process of the server
        term.resize(140, 40)
        term.type("take your time")
        term.wait_for(lambda _: mark.exists())  # the server has begun the call
        term.send(CTRL_C)
        term.wait_for(lambda _: mark.read_text() == "cancelled")  # the server was told
        term.wait_idle()
        term.type("are you there?")
        screen = term.wait_for(lambda t: "still here" in t and "mcp 1/1" in t)
    finally:
        term.close()
    assert "⏹ interrupted" in screen
    bodies = fake_model.bodies()
    assert len(bodies) == 2  # the interrupted call's result went with the next turn
    results = [
        b
        for m in bodies[1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert len(results) == 1
    assert "interrupted" in str(results[0]["content"])
