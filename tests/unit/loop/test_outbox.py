"""The outbox hands a running tool round's events over as they are emitted, in order, and what
is emitted as the round ends after them: woken by each emit and by the round's end."""

from __future__ import annotations

import asyncio

from agent_cli.core.events import Event, WarningEvent
from agent_cli.loop.outbox import Outbox, Passed


def test_events_arrive_while_the_task_runs_in_order_and_the_last_ones_after_it_ends():
    async def go() -> tuple[list[tuple[str, bool]], list[str]]:
        outbox = Outbox()
        gate = asyncio.Event()

        async def round_() -> None:
            outbox.emit(WarningEvent(message="one"))
            outbox.emit(WarningEvent(message="two"))
            await gate.wait()  # held until the first two were handed over
            outbox.emit(WarningEvent(message="three"))
            await asyncio.sleep(0)
            outbox.emit(WarningEvent(message="last"))  # emitted as the task ends

        task = asyncio.ensure_future(round_())
        seen: list[tuple[str, bool]] = []
        async for passed in outbox.while_running(task):
            assert isinstance(passed, Passed)
            event: Event = passed.event
            assert isinstance(event, WarningEvent)
            seen.append((event.message, task.done()))
            if event.message == "two":
                gate.set()
        return seen, [e.message for e in outbox.pending() if isinstance(e, WarningEvent)]

    seen, left = asyncio.run(go())
    assert [m for m, _ in seen] == ["one", "two", "three", "last"]
    assert [done for _, done in seen[:2]] == [False, False]  # handed over while it still ran
    assert left == []


def test_a_task_that_ends_without_emitting_ends_the_wait():
    async def go() -> list[Passed]:
        outbox = Outbox()
        task = asyncio.ensure_future(asyncio.sleep(0.01))
        return [p async for p in outbox.while_running(task)]

    assert asyncio.run(go()) == []
