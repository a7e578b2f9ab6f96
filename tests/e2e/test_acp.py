"""`agent acp` driven by the ACP SDK's own client side, against the fake model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block

from tests.e2e.acp_client import Editor, agent_acp
from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic
from tests.unit.model.test_thinking_runs import think_on


def kinds(editor: Editor) -> list[str]:
    out = []
    for what, item in editor.seen:
        if what == "permission":
            out.append("permission")
        else:
            out.append(item.session_update)
    return [k for i, k in enumerate(out) if i == 0 or out[i - 1] != k or k != "agent_message_chunk"]


def test_a_prompt_reads_edits_with_permission_and_finishes_in_order(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.txt").write_text("hello\n")
    (tmp_path / "b.txt").write_text("old line\n")
    fake_model.script.tool_use("read_file", path="a.txt").tool_use("read_file", path="b.txt")
    fake_model.script.tool_use("edit_file", path="b.txt", old_string="old", new_string="new")
    fake_model.script.text("done editing")
    editor = Editor()

    async def drive() -> tuple[str, str]:
        async with agent_acp(fake_env, tmp_path, editor) as conn:
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            assert session.modes is not None
            assert session.modes.current_mode_id == "default"
            assert {m.id for m in session.modes.available_modes} == {
                "default", "accept-edits", "plan", "bypass"
            }  # fmt: skip
            reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            return reply.stop_reason, session.session_id

    stop, _sid = asyncio.run(drive())
    assert stop == "end_turn"
    assert kinds(editor) == [
        "tool_call",  # read_file a.txt
        "tool_call_update",
        "tool_call",  # read_file b.txt (edit_file asks for it first)
        "tool_call_update",
        "tool_call",  # edit_file, then its question, then its result
        "permission",
        "tool_call_update",
        "agent_message_chunk",
    ]
    read, _, edit = editor.updates("tool_call")
    assert (read.kind, read.locations[0].path) == ("read", str(tmp_path / "a.txt"))
    assert (edit.kind, edit.locations[0].path) == ("edit", str(tmp_path / "b.txt"))
    ((asked, options),) = [item for what, item in editor.seen if what == "permission"]
    assert asked.tool_call_id == edit.tool_call_id
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    assert asked.content[0].type == "diff"
    assert (asked.content[0].old_text, asked.content[0].new_text) == ("old line\n", "new line\n")
    read_done, _, edit_done = editor.updates("tool_call_update")
    assert read_done.status == "completed"
    assert "hello" in read_done.content[0].content.text
    assert edit_done.status == "completed", edit_done.content[0].content.text
    (diff,) = edit_done.content
    assert (diff.type, diff.path) == ("diff", str(tmp_path / "b.txt"))
    assert (diff.old_text, diff.new_text) == ("old line\n", "new line\n")
    said = "".join(u.content.text for u in editor.updates("agent_message_chunk"))
    assert said == "done editing"
    assert (tmp_path / "b.txt").read_text() == "new line\n"


def test_a_rejected_edit_leaves_the_file(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "b.txt").write_text("old line\n")
    fake_model.script.tool_use("write_file", path="b.txt", content="gone\n").text("ok")
    editor = Editor(answer="reject_once")

    async def drive() -> str:
        async with agent_acp(fake_env, tmp_path, editor) as conn:
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            return reply.stop_reason

    assert asyncio.run(drive()) == "end_turn"
    assert (tmp_path / "b.txt").read_text() == "old line\n"
    (done,) = editor.updates("tool_call_update")
    assert done.status == "failed"
    assert "denied" in fake_model.bodies()[1]["messages"][-1]["content"][0]["content"]


def test_cancel_ends_the_prompt_cancelled_and_the_next_prompt_is_valid(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command="sleep 30")
    fake_model.script.text("after the stop")
    editor = Editor()

    async def drive() -> tuple[str, str]:
        async with agent_acp(fake_env, tmp_path, editor) as conn:
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            sid = session.session_id
            await conn.set_session_mode(session_id=sid, mode_id="bypass")  # bash runs unasked
            running = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("go")]))
            await editor.wait_for(
                lambda what, u: what == "update" and u.session_update == "tool_call"
            )
            await conn.cancel(session_id=sid)
            first = (await asyncio.wait_for(running, 20)).stop_reason
            second = await conn.prompt(session_id=sid, prompt=[text_block("and now?")])
            return first, second.stop_reason

    assert asyncio.run(drive()) == ("cancelled", "end_turn")
    (call,) = editor.updates("tool_call")
    (ended,) = [
        u for u in editor.updates("tool_call_update") if u.tool_call_id == call.tool_call_id
    ]
    assert ended.status == "failed"
    assert all(what != "permission" for what, _ in editor.seen)  # bypass: nothing asked
    _first, second = fake_model.bodies()  # the fixture fails on an invalid request
    results = [
        b
        for m in second["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert [r["tool_use_id"] for r in results] == [call.tool_call_id]  # every call answered


def test_load_replays_the_history_then_goes_on(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.txt").write_text("hello\n")
    fake_model.script.tool_use("read_file", path="a.txt").text("it says hello")
    fake_model.script.text("still here")

    async def first() -> str:
        async with agent_acp(fake_env, tmp_path, Editor()) as conn:
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("read a")])
            return session.session_id

    sid = asyncio.run(first())
    editor = Editor()

    async def again() -> str:
        async with agent_acp(fake_env, tmp_path, editor) as conn:
            await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
            replayed = len(editor.seen)
            assert replayed > 0
            reply = await conn.prompt(session_id=sid, prompt=[text_block("more")])
            return reply.stop_reason

    assert asyncio.run(again()) == "end_turn"
    kinds_seen = [u.session_update for u in editor.updates()]
    once = [k for i, k in enumerate(kinds_seen) if i == 0 or kinds_seen[i - 1] != k]
    assert once[:4] == [
        "user_message_chunk",
        "tool_call",
        "tool_call_update",  # its result, and the summary line the screen showed
        "agent_message_chunk",
    ]
    titles = [u.title for u in editor.updates("tool_call_update") if u.title]
    assert "read_file a.txt (1 line)" in titles
    assert editor.updates("user_message_chunk")[0].content.text == "read a"
    assert editor.updates("tool_call")[0].title == "read_file a.txt"
    messages = fake_model.bodies()[-1]["messages"]
    assert messages[0]["content"][0]["text"] == "read a"
    assert len(messages) == 5  # read a, tool_use, result, the answer, "more"


def test_a_missing_cwd_is_refused_with_the_reason(fake_env: dict[str, str], tmp_path: Path):
    async def drive() -> None:
        async with agent_acp(fake_env, tmp_path, Editor()) as conn:
            await conn.new_session(cwd=str(tmp_path / "missing"), mcp_servers=[])

    with pytest.raises(RequestError) as refused:
        asyncio.run(drive())
    assert "not a directory" in str(refused.value.data)


def test_stdout_carries_only_protocol_messages(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    """The bytes themselves (the SDK client would skip a stray line): JSON-RPC, one a line,
    through a whole prompt; the logs and warnings go to stderr."""
    fake_model.script.text("hi")
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "nope"}}}')  # a warning
    lines = [
        {"id": 1, "method": "initialize", "params": {"protocolVersion": PROTOCOL_VERSION}},
        {"id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}},
    ]
    stdin = "".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in lines)
    proc = run_agent(fake_env, tmp_path, "acp", stdin=stdin)
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [m.get("id") for m in out] == [1, 2]
    assert all(m["jsonrpc"] == "2.0" and "result" in m for m in out), out
    assert "Traceback" not in proc.stderr


def test_thinking_streams_as_thought_chunks_and_todos_as_the_plan(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    think_on(Path(fake_env["HOME"]))
    todos = [{"content": "Read a.txt", "status": "in_progress", "active_form": "Reading"}]
    fake_model.script.reply(
        [
            {"type": "thinking", "thinking": "First a plan."},
            {"type": "redacted_thinking"},
            {"type": "tool_use", "name": "todo_write", "input": {"todos": todos}},
        ]
    ).reply([{"type": "thinking", "thinking": "Now answer."}, {"type": "text", "text": "ok"}])
    editor = Editor()

    async def drive() -> str:
        async with agent_acp(fake_env, tmp_path, editor) as conn:
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            return reply.stop_reason

    assert asyncio.run(drive()) == "end_turn"
    thought = "".join(u.content.text for u in editor.updates("agent_thought_chunk"))
    assert thought == "First a plan.Now answer."
    said = "".join(u.content.text for u in editor.updates("agent_message_chunk"))
    assert said == "ok"  # thinking is never the answer
    (plan,) = editor.updates("plan")
    assert [(e.content, e.status) for e in plan.entries] == [("Read a.txt", "in_progress")]
    order = [u.session_update for u in editor.updates()]
    assert (
        order.index("agent_thought_chunk")
        < order.index("plan")
        < order.index("agent_message_chunk")
    )
