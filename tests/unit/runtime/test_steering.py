"""Steering a running turn through the Runtime: a message queued while a tool runs reaches the
model at the next tool boundary, after the results and before the turn ends; one queued while
the model writes its last reply keeps the turn going for it. Every request stays valid (§16,
checked by the fake model)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_cli.core.events import Event, Steered, TextDelta, ToolStart, TurnEnd
from tests.e2e.runtime_support import drive, make_runtime
from tests.fake_model import FakeAnthropic


@pytest.mark.usefixtures("sdk_env")
def test_a_message_queued_during_a_tool_reaches_the_next_request(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.tool_use("bash", command="sleep 0.5").text("read it, carrying on")
    runtime = make_runtime(tmp_path, monkeypatch)

    def on_event(event: Event) -> None:
        if isinstance(event, ToolStart):
            assert runtime.work.steer("also look at the README")

    events = asyncio.run(drive(runtime, "run the tests", on_event))
    second = fake_model.bodies()[1]["messages"][-1]["content"]
    assert [b["type"] for b in second] == ["tool_result", "text"]
    assert second[1]["text"] == "also look at the README"
    steered = [e for e in events if isinstance(e, Steered)]
    assert [s.texts for s in steered] == [["also look at the README"]]
    end = next(i for i, e in enumerate(events) if isinstance(e, TurnEnd))
    assert events.index(steered[0]) < end
    assert len(fake_model.bodies()) == 2  # delivered at the boundary: no extra request


@pytest.mark.usefixtures("sdk_env")
def test_a_message_queued_during_the_last_reply_keeps_the_turn_going(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.text("all done here", chunks=4, pace=0.05).text("and the README too")
    runtime = make_runtime(tmp_path, monkeypatch)
    queued: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, TextDelta) and not queued:
            queued.append("and the README?")
            runtime.work.steer(queued[0])

    events = asyncio.run(drive(runtime, "summarise", on_event))
    last = fake_model.bodies()[-1]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert last[-1]["content"][-1]["text"] == "and the README?"
    end = events[-1]
    assert isinstance(end, TurnEnd)
    assert "and the README too" in end.text
