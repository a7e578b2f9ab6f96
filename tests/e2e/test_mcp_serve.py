"""`agent mcp serve` driven by the `mcp` SDK's own client, against the fake model."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.e2e.helpers import REPO
from tests.fake_model import FakeAnthropic


def params(env: dict[str, str], cwd: Path, *flags: str) -> StdioServerParameters:
    env = {**env, "PYTHONPATH": str(REPO)}
    args = ["-m", "agent_cli", "mcp", "serve", *flags]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=cwd)


async def connected(env: dict[str, str], cwd: Path, work: Any, *flags: str) -> Any:
    with (cwd / "server-stderr.txt").open("w") as errlog:
        async with (
            stdio_client(params(env, cwd, *flags), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await work(session)


def test_agent_then_agent_reply_with_progress(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.txt").write_text("hello\n")
    fake_model.script.tool_use("read_file", path="a.txt").text("a says hello")
    fake_model.script.text("still hello")
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async def work(session: ClientSession) -> tuple[Any, Any, Any]:
        tools = await session.list_tools()
        first = await session.call_tool(
            "agent", {"prompt": "what is in a.txt?"}, progress_callback=on_progress
        )
        sid = first.structured_content["session_id"]
        second = await session.call_tool("agent_reply", {"session_id": sid, "prompt": "again?"})
        return tools, first, second

    tools, first, second = asyncio.run(connected(fake_env, tmp_path, work))
    listed = {t.name: t for t in tools.tools}
    assert set(listed) == {"agent", "agent_reply"}
    agent_schema = listed["agent"].input_schema
    assert agent_schema["required"] == ["prompt"]
    assert set(agent_schema["properties"]) == {"prompt", "cwd", "permission_mode", "model"}
    assert listed["agent_reply"].input_schema["required"] == ["session_id", "prompt"]
    assert "session_id" in listed["agent"].output_schema["properties"]
    assert not first.is_error
    answer = first.structured_content
    assert answer["result"] == "a says hello"
    assert sum(answer["usage"].values()) > 0, answer["usage"]
    assert answer["num_turns"] == 2
    assert [m for _, m in seen] == ["running read_file a.txt", "read_file a.txt (1 line)"]
    assert second.structured_content["session_id"] == answer["session_id"]
    assert second.structured_content["result"] == "still hello"
    last = fake_model.bodies()[-1]["messages"]
    assert last[0]["content"][0]["text"] == "what is in a.txt?"  # the same session went on
    assert last[-1]["content"][0]["text"] == "again?"


def test_a_cancelled_call_stops_the_run_and_the_session_goes_on(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command="sleep 30 && touch finished")
    fake_model.script.text("after the stop")
    started = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    async def work(session: ClientSession) -> Any:
        call = asyncio.ensure_future(
            session.call_tool(
                "agent",
                {"prompt": "wait", "permission_mode": "bypass"},
                progress_callback=on_progress,
            )
        )
        await asyncio.wait_for(started.wait(), 30)
        call.cancel()  # the SDK sends notifications/cancelled
        await asyncio.gather(call, return_exceptions=True)
        await asyncio.sleep(0.5)
        sessions = list((tmp_path / ".transcripts").glob("*.jsonl"))
        sid = sessions[0].stem if sessions else ""
        return await session.call_tool("agent_reply", {"session_id": sid, "prompt": "go on"})

    # a client may not widen the server's mode (issue 50, item 9): the server is started in it
    reply = asyncio.run(connected(fake_env, tmp_path, work, "--permission-mode", "bypass"))
    assert not reply.is_error, reply
    assert reply.structured_content["result"] == "after the stop"
    assert not (tmp_path / "finished").exists()
    _first, second = fake_model.bodies()  # the fixture fails on an invalid request
    results = [
        b
        for m in second["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert len(results) == 1  # the stopped call was answered


def test_an_approval_nobody_can_give_is_denied_with_the_reason(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("write_file", path="new.txt", content="x\n").text("could not")

    async def work(session: ClientSession) -> Any:
        return await session.call_tool("agent", {"prompt": "write", "cwd": str(tmp_path)})

    answer = asyncio.run(connected(fake_env, tmp_path, work))
    assert answer.structured_content["result"] == "could not"
    assert not (tmp_path / "new.txt").exists()
    result = fake_model.bodies()[1]["messages"][-1]["content"][0]
    assert "Permission denied" in str(result["content"])
    assert "--permission-mode" in str(result["content"])
