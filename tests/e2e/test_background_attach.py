"""Attaching to a background session (issue 55: one protocol, `agent attach`): its socket
speaks the Agent Client Protocol, so the SDK's own client side, through `agent attach NAME
--acp` as an editor runs it, gets the session (history replayed), receives its live updates,
steers it and answers its approval; `agent attach` in a terminal at
80x24 does the same for a person, and detaching leaves the session running."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.client.connection import ClientSideConnection
from acp.interfaces import Client
from acp.schema import (
    ClientCapabilities,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from agent_cli.ext.background.answering import answer
from agent_cli.ext.background.registry import process_start
from tests.e2e import test_background
from tests.e2e.acp_client import Editor
from tests.e2e.helpers import REPO
from tests.e2e.memory_support import episode_json, generator_route
from tests.e2e.pty_screen import CTRL_D, ChatTerm
from tests.e2e.test_background import launch, record, until_state
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

WAIT_S = 60.0
NAME = {
    "question": "Which name?",
    "header": "Name",
    "options": [{"label": "greet"}, {"label": "say_hello", "description": "says what it does"}],
}
bg_env = test_background.bg_env  # its registry of the test's own, its sessions killed after


def said(body: dict[str, Any]) -> str:
    """Every text the user's side of a request holds."""
    return " ".join(
        str(b.get("text", ""))
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
    )


def reply(editor: Editor) -> str:
    return "".join(u.content.text for u in editor.updates("agent_message_chunk"))


class Silent(Editor):
    """A client that never answers a permission: another's answer decides."""

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **kw: Any
    ) -> RequestPermissionResponse:
        self.seen.append(("permission", (tool_call, options)))
        self.arrived.set()
        await asyncio.Event().wait()
        raise AssertionError("never answered")


def test_an_editor_attaches_over_acp_sees_the_session_live_steers_and_answers_it(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("write_file", path="out.txt", content="hi").text("wrote it")
    fake_model.script.text("again")  # the turn a line typed while it is idle starts
    # the new prompt turns from the changed file to another topic: an episode may be written
    generator_route(fake_model).text(episode_json(title="Wrote out.txt"))
    test_background.user_settings(bg_env, {"background": {"idle_minutes": 5}})
    launch(bg_env, tmp_path, "--name", "writer", "-p", "write out")
    held = until_state(bg_env, "writer", "waiting: approval")
    editor, watcher = Editor(), Silent()  # the editor answers allow_once

    async def attach() -> None:
        reader, writer = await asyncio.open_unix_connection(held["socket"])
        watching = ClientSideConnection(cast(Client, watcher), writer, reader)
        await watching.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        await watching.load_session(cwd=str(tmp_path), session_id=held["session_id"])
        await watcher.wait_for(lambda what, _: what == "permission", WAIT_S)
        await by_editor()
        await watcher.wait_for(lambda *_: reply(watcher) == "wrote itagain", WAIT_S)
        await watching.close()
        writer.close()
        await writer.wait_closed()

    async def by_editor() -> None:  # as an editor runs it: a command over stdio
        env = {**bg_env, "PYTHONPATH": str(REPO)}
        command = ("-m", "agent_cli", "attach", "writer", "--acp")
        spawned = spawn_agent_process(
            cast(Client, editor), sys.executable, *command, env=env, cwd=tmp_path
        )
        async with spawned as (conn, _process):
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
            )
            sid = held["session_id"]
            steered = await conn.prompt(session_id=sid, prompt=[text_block("and say bye")])
            assert steered.stop_reason == "end_turn"  # steering: answered at once
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            assert session.session_id == sid  # a new thread of the editor's: this session
            await editor.wait_for(lambda *_: reply(editor) == "wrote it", WAIT_S)
            await asyncio.to_thread(until_state, bg_env, "writer", "idle")
            await conn.prompt(session_id=sid, prompt=[text_block("one more")])  # its next prompt
            await editor.wait_for(lambda *_: reply(editor) == "wrote itagain", WAIT_S)

    asyncio.run(attach())
    assert "one more" in said(fake_model.bodies()[2])  # an idle session's next turn
    assert (tmp_path / "out.txt").read_text() == "hi"
    kinds = [u.session_update if what == "update" else what for what, u in editor.seen]
    assert kinds[:2] == ["user_message_chunk", "tool_call"]  # the history, replayed
    steered = [u.content.text for u in editor.updates("user_message_chunk")]
    assert steered == ["write out", "and say bye"]  # the prompt replayed, the steering live
    (call,) = editor.updates("tool_call")
    assert call.title == "write_file out.txt"
    ((asked, _options),) = [item for what, item in editor.seen if what == "permission"]
    assert asked.tool_call_id == call.tool_call_id
    assert kinds.index("permission") < kinds.index("tool_call_update")
    (done,) = editor.updates("tool_call_update")  # live: the allowed call's end
    assert (done.tool_call_id, done.status) == (call.tool_call_id, "completed")
    assert "and say bye" in said(fake_model.bodies()[1])  # the steering reached the model
    seen = [u.session_update if what == "update" else what for what, u in watcher.seen]
    assert seen == kinds  # two clients see the same; the first answer decided for both


def test_agent_attach_answers_an_approval_and_a_question_and_detaching_leaves_it_running(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("write_file", path="a.txt", content="a")
    fake_model.script.tool_use("ask_user", questions=[NAME])
    fake_model.script.tool_use("write_file", path="b.txt", content="b").text("wrote both")
    launch(bg_env, tmp_path, "--name", "pair", "-p", "write a and b")
    until_state(bg_env, "pair", "waiting: approval")
    term = ChatTerm(bg_env, tmp_path, "pair", command="attach", columns=80, lines=24)
    try:
        screen = term.wait_for("y: Allow once", WAIT_S)
        assert "you> write a and b" in screen  # its history, redrawn
        assert "? allow write_file a.txt?\n  a.txt:\n  + a\n" in screen  # what it would write
        term.type("y")
        term.wait_for("a number, or your own answer", WAIT_S)  # its question, after the write
        assert "? Name: Which name?\n  1. greet\n  2. say_hello — says what it does" in term.text()
        term.type("2")
        term.wait_for(
            lambda t: "? allow write_file b.txt?" in t and t.endswith("n: Reject"), WAIT_S
        )
        assert (tmp_path / "a.txt").read_text() == "a"
        term.send(CTRL_D)
        term.wait_for("detached: pair goes on", WAIT_S)
    finally:
        term.close()
    held = record(bg_env, "pair")
    assert held["state"] == "waiting: approval"  # detached, not ended
    assert process_start(held["pid"]) == held["process_start"]
    answer(held["socket"], decision="allow")
    until_state(bg_env, "pair", "done")
    assert (tmp_path / "b.txt").read_text() == "b"
    asked = fake_model.bodies()[2]["messages"][-1]["content"]
    assert "say_hello" in str([b["content"] for b in asked if b["type"] == "tool_result"])
    wait_until(lambda: process_start(held["pid"]) is None, WAIT_S, "the session's end")
    assert not os.path.exists(held["socket"])  # noqa: PTH110 - a socket's path
