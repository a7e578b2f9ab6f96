"""Attaching to a background session (issue 55: one protocol, `agent attach`): its socket
speaks the Agent Client Protocol, so the SDK's own client side, through `agent attach NAME
--acp` as an editor runs it, gets the session (history replayed), receives its live updates,
steers it and answers its approval; `agent attach` in a terminal at
80x24 does the same for a person, and detaching leaves the session running."""

from __future__ import annotations

import asyncio
import subprocess
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

from tests.e2e import test_background
from tests.e2e.acp_client import Editor
from tests.e2e.helpers import REPO
from tests.e2e.memory_support import episode_json, generator_route
from tests.e2e.pty_screen import CTRL_D, ChatTerm
from tests.e2e.test_background import launch, ps, until_state
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


def line_client(env: dict[str, str], workspace: Path, name: str) -> subprocess.Popen[str]:
    """`agent attach NAME` with pipes: the line client (a second attached terminal)."""
    return subprocess.Popen(
        [sys.executable, "-m", "agent_cli", "attach", name],
        cwd=workspace,
        env={**env, "PYTHONPATH": str(REPO)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )


def drawn(term: ChatTerm, text: str) -> None:
    """`text` reaches the terminal: on screen or scrolled above it."""

    def shown() -> bool:
        term.pump()
        return text in "\n".join(term.scrollback())

    wait_until(shown, WAIT_S, repr(text))


def lines_until(proc: subprocess.Popen[str], wanted: str, seen: list[str]) -> None:
    """The line client's output read until a line holds `wanted` (kept in `seen`)."""
    assert proc.stdout is not None
    while not any(wanted in line for line in seen):
        line = proc.stdout.readline()
        assert line, f"the line client ended before {wanted!r}: {seen}"
        seen.append(line)


def test_agent_attach_is_the_chat_screen_two_terminals_share_it_and_detaching_leaves_it(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("write_file", path="a.txt", content="a")
    fake_model.script.tool_use("ask_user", questions=[NAME])
    fake_model.script.tool_use("write_file", path="b.txt", content="b").text("wrote both")
    launch(bg_env, tmp_path, "--name", "pair", "-p", "write a and b")
    until_state(bg_env, "pair", "waiting: approval")
    other, seen = line_client(bg_env, tmp_path, "pair"), list[str]()
    try:
        screens_share_it(bg_env, tmp_path, other, seen)
    finally:
        other.kill()
        other.communicate()  # its pipes closed
    assert (tmp_path / "b.txt").read_text() == "b"
    asked = fake_model.bodies()[2]["messages"][-1]["content"]
    assert "say_hello" in str([b["content"] for b in asked if b["type"] == "tool_result"])


def screens_share_it(
    bg_env: dict[str, str], tmp_path: Path, other: subprocess.Popen[str], seen: list[str]
) -> None:
    term = ChatTerm(
        bg_env, tmp_path, "pair", command="attach", columns=80, lines=24, scrollback=True
    )
    try:
        screen = term.wait_for("3 no", WAIT_S)  # the chat's approval, on the chat's screen
        drawn(term, "you> write a and b")  # its history, redrawn
        assert b"\a\x1b]9;agent: allow write_file a.txt?\a" in term.raw  # it rang
        assert "Allow write_file a.txt?" in screen
        assert "1 yes" in screen
        assert "pair · answer the question above" in screen  # the status bar
        lines_until(other, "? allow write_file a.txt?", seen)  # the line client asked too
        term.send("1")  # the first answer wins: the line client's question goes
        lines_until(other, "(answered elsewhere)", seen)
        term.wait_for("2. say_hello", WAIT_S)  # its question, in the chat's dialog
        term.send("2")
        term.wait_for("Allow write_file b.txt?", WAIT_S)
        assert (tmp_path / "a.txt").read_text() == "a"
        drawn(term, "Name: Which name? → say_hello")  # its answer, kept in scrollback
        term.send(CTRL_D)  # detaches: the session goes on, waiting
        term.wait_for("detached: pair goes on", WAIT_S)
    finally:
        term.close()
    assert ps(bg_env, tmp_path)["pair"]["state"] == "waiting: approval"
    again = ChatTerm(
        bg_env, tmp_path, "pair", command="attach", columns=80, lines=24, scrollback=True
    )
    try:
        again.wait_for("Allow write_file b.txt?", WAIT_S)
        drawn(again, "✔ ask_user (1 answered)")  # what it did before, redrawn
        drawn(again, "A: say_hello")
        lines_until(other, "? allow write_file b.txt?", seen)
        assert other.stdin is not None
        other.stdin.write("y\n")  # answered on the other terminal: this screen's closes
        other.stdin.flush()
        drawn(again, "answered from another attached terminal")
        drawn(again, "wrote both")  # it finished: its final text
        drawn(again, "pair ended (done)")
    finally:
        again.close()
