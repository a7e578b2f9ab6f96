"""Events emitted from anywhere during a turn (a tool, a stage, the usage sink), handed out in
the order they were emitted, between the turn's own events."""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from agent_cli.core.events import Event


@dataclass
class Passed:
    """An emitted event the turn already took from the outbox, in order."""

    event: Event


class Outbox:
    def __init__(self) -> None:
        self._queue: asyncio.Queue[Event] = asyncio.Queue()

    def emit(self, event: Event) -> None:
        self._queue.put_nowait(event)

    def pending(self) -> list[Event]:
        items: list[Event] = []
        while not self._queue.empty():
            items.append(self._queue.get_nowait())
        return items

    def passed(self, item: Event | Passed) -> list[Event]:
        """A turn's item as drained: a passed event alone, its own after what was emitted."""
        return [item.event] if isinstance(item, Passed) else [*self.pending(), item]

    async def drain(self, work: AsyncIterator[Event | Passed]) -> AsyncIterator[Event]:
        """The work's events, each preceded by whatever was emitted before it."""
        async for event in work:
            if isinstance(event, Passed):
                yield event.event
                continue
            for pending in self.pending():
                yield pending
            yield event
        for pending in self.pending():
            yield pending

    async def while_running(self, task: asyncio.Future[Any]) -> AsyncIterator[Passed]:
        """Events emitted while `task` runs, as they come (live progress), then the rest."""
        while not task.done():
            getter = asyncio.ensure_future(self._queue.get())
            finished, _ = await asyncio.wait({task, getter}, return_when=FIRST_COMPLETED)
            if getter in finished:
                yield Passed(getter.result())
            else:
                getter.cancel()
        for pending in self.pending():
            yield Passed(pending)
