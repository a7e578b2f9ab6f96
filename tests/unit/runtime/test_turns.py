"""The Runtime as front ends drive it, in process against the fake model: a turn is
checkpointed and its events come out of `turn()`; `interrupt()` stops the running turn and
leaves a valid history; what happens between turns reaches the listeners; the model and
thinking chosen between turns are the next request's; the permission mode cycles."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from agent_cli.core.errors import UsageError
from agent_cli.core.events import CheckpointSaved, Event, ToolStart, TurnEnd, WarningEvent
from agent_cli.core.history import INTERRUPTED
from agent_cli.core.options import next_mode
from agent_cli.runtime.runtime import Runtime
from tests.e2e.checkpoint_support import rewinds
from tests.e2e.runtime_support import drive, make_runtime
from tests.fake_model import FakeAnthropic
from tests.waiting import until

pytestmark = pytest.mark.usefixtures("sdk_env")


def closing(runtime: Runtime) -> None:
    asyncio.run(runtime.aclose(wait=False))


@pytest.mark.skipif(shutil.which("git") is None, reason="checkpoints need git")
def test_a_turn_is_checkpointed_and_ends_with_its_answer(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.tool_use("write_file", path="made.txt", content="new\n").text("wrote it")
    runtime = make_runtime(tmp_path, monkeypatch)
    events = asyncio.run(drive(runtime, "make a file"))
    (saved,) = [e for e in events if isinstance(e, CheckpointSaved)]
    assert saved.turn == 1
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "wrote it"
    assert [c.id for c in rewinds(runtime).checkpoints()] == [saved.id]
    assert not runtime.work.turn_running


def test_interrupt_stops_the_running_turn_and_the_next_one_goes_on(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.tool_use("bash", command="touch started; sleep 30").text("next turn")
    runtime = make_runtime(tmp_path, monkeypatch)
    started = tmp_path / "started"

    async def go() -> tuple[list[Event], list[Event]]:
        seen: list[Event] = []

        async def consume() -> None:
            async for event in runtime.turn("run it"):
                seen.append(event)

        task = asyncio.create_task(consume())
        bash = lambda: any(isinstance(e, ToolStart) for e in seen) and started.exists()  # noqa: E731
        await until(bash, 20, "bash running")
        assert runtime.work.turn_running
        runtime.interrupt()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not runtime.work.turn_running
        return seen, await drive(runtime, "and now?")

    seen, after = asyncio.run(go())
    assert not any(isinstance(e, TurnEnd) for e in seen)
    assert isinstance(after[-1], TurnEnd)
    assert after[-1].text == "next turn"
    (result, *_) = fake_model.bodies()[-1]["messages"][-1]["content"]
    assert result["is_error"] is True
    assert INTERRUPTED in str(result["content"])


def test_interrupt_without_a_turn_does_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    runtime = make_runtime(tmp_path, monkeypatch)
    runtime.interrupt()
    assert not runtime.work.turn_running
    closing(runtime)


def test_between_turns_published_events_reach_the_listeners(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.text("fine")
    runtime = make_runtime(tmp_path, monkeypatch)
    heard: list[Event] = []
    runtime.listeners.append(heard.append)
    runtime.publish(WarningEvent(message="between turns"))
    events = asyncio.run(drive(runtime, "hi"))
    assert heard == [WarningEvent(message="between turns")]
    assert not any(isinstance(e, WarningEvent) for e in events)


def test_the_model_and_thinking_set_between_turns_are_the_next_requests(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.text("one").text("two")
    runtime = make_runtime(tmp_path, monkeypatch)

    async def go() -> None:
        try:
            _ = [e async for e in runtime.turn("first")]
            runtime.tuning.set_model("claude-other")
            runtime.tuning.set_thinking(2_048)
            _ = [e async for e in runtime.turn("second")]
        finally:
            await runtime.aclose(wait=False)

    asyncio.run(go())
    first, second = fake_model.bodies()
    assert "thinking" not in first or first["thinking"].get("type") != "enabled"
    assert second["model"] == "claude-other"
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 2_048}


def test_a_thinking_budget_past_max_tokens_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    runtime = make_runtime(tmp_path, monkeypatch)
    with pytest.raises(UsageError):
        runtime.tuning.set_thinking(runtime.settings.max_tokens + 1)
    assert runtime.settings.thinking.budget_tokens is None
    closing(runtime)


def test_the_permission_mode_cycles_and_follows_a_new_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    runtime = make_runtime(tmp_path, monkeypatch)
    assert runtime.permission_mode == "bypass"  # chosen at start, never cycled back into

    def cycle() -> str:  # the chat's key
        runtime.set_permission_mode(next_mode(runtime.permission_mode))
        return runtime.permission_mode

    assert [cycle() for _ in range(5)] == [
        "default",
        "accept-edits",
        "plan",
        "auto",
        "default",
    ]
    cycle()
    runtime.switch()  # /clear
    assert runtime.permission_mode == "accept-edits"
    closing(runtime)
