"""A turn cancelled in process (what Ctrl-C and SIGTERM do to it, tests/e2e has the signals
themselves): mid-reply the streamed text stays with the user's marker; mid-round every call
gets a result; either way the next request is valid (SPEC §16, checked by the fake model)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_cli.core.events import Event, TextDelta, ToolStart, TurnEnd
from agent_cli.core.history import INTERRUPTED, USER_INTERRUPTED
from agent_cli.loop.agent import Agent
from tests.e2e.agents import bypass, make_agent
from tests.fake_model import FakeAnthropic
from tests.fake_model.wire import split
from tests.waiting import until

pytestmark = pytest.mark.usefixtures("sdk_env")


async def cancelled_when(
    agent: Agent, prompt: str, ready: Callable[[list[Event]], bool]
) -> list[Event]:
    """The turn's events until `ready` holds of them; then it is cancelled, as Ctrl-C does."""
    seen: list[Event] = []

    async def consume() -> None:
        async for event in agent.run_turn(prompt):
            seen.append(event)

    task = asyncio.create_task(consume())
    await until(lambda: ready(seen) or task.done(), 20, "the point to cancel at")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return seen


async def then_next_turn(agent: Agent, prompt: str) -> list[Event]:
    try:
        return [event async for event in agent.run_turn(prompt)]
    finally:
        await agent.client.close()


def test_cancelled_mid_reply_keeps_the_streamed_text_and_the_marker(
    fake_model: FakeAnthropic, tmp_path: Path
):
    reply = "Partial words, then the rest"
    fake_model.script.text(reply, stall_after=4, delay=30).text("the rest, then")
    agent = make_agent(tmp_path, bypass())

    async def go() -> tuple[list[Event], list[Event]]:
        streamed = lambda seen: any(isinstance(e, TextDelta) for e in seen)  # noqa: E731
        seen = await cancelled_when(agent, "slow please", streamed)
        return seen, await then_next_turn(agent, "go on")

    seen, after = asyncio.run(go())
    assert not any(isinstance(e, TurnEnd) for e in seen)
    assert isinstance(after[-1], TurnEnd)
    assert after[-1].text == "the rest, then"
    said = [
        (m["role"], b["text"])
        for m in fake_model.bodies()[-1]["messages"]
        for b in m["content"]
        if b["type"] == "text"
    ]
    assert said == [
        ("user", "slow please"),
        ("assistant", split(reply)[0]),
        ("user", USER_INTERRUPTED),
        ("user", "go on"),
    ]


def test_cancelled_before_any_text_leaves_only_the_marker(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.text("never seen", delay=30).text("fresh start")
    agent = make_agent(tmp_path, bypass())

    async def go() -> list[Event]:
        asked = lambda _: len(fake_model.bodies()) == 1  # noqa: E731
        await cancelled_when(agent, "first", asked)
        return await then_next_turn(agent, "second")

    after = asyncio.run(go())
    assert isinstance(after[-1], TurnEnd)
    (user,) = fake_model.bodies()[-1]["messages"]  # no assistant message of nothing
    texts = [b["text"] for b in user["content"]]
    assert texts == ["first", USER_INTERRUPTED, "second"]


def test_cancelled_mid_round_gives_every_call_a_result(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("contents of a\n")
    fake_model.script.tool_uses(
        ("read_file", {"path": "a.txt"}),
        ("bash", {"command": "touch started; sleep 30"}),
    ).text("after the stop")
    agent = make_agent(tmp_path, bypass())
    started = tmp_path / "started"

    async def go() -> tuple[list[Event], list[Event]]:
        def running(seen: list[Event]) -> bool:
            bash = any(isinstance(e, ToolStart) and e.name == "bash" for e in seen)
            return bash and started.exists()

        seen = await cancelled_when(agent, "start", running)
        return seen, await then_next_turn(agent, "what happened?")

    seen, after = asyncio.run(go())
    assert not any(isinstance(e, TurnEnd) for e in seen)
    assert isinstance(after[-1], TurnEnd)
    assert after[-1].text == "after the stop"
    sent = fake_model.bodies()[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    read, bash, *rest = sent[-1]["content"]
    assert "contents of a" in json.dumps(read["content"])  # it had finished: its real result
    assert bash["is_error"] is True
    assert INTERRUPTED in json.dumps(bash["content"])
    assert rest[-1]["text"] == "what happened?"
