"""Events emitted from anywhere during a turn (a tool, a stage, the usage sink), handed out in
the order they were emitted, between the turn's own events."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from agent_cli.core.events import Event


@dataclass
class Passed:
    """An emitted event the turn already took from the outbox, in order."""

    event: Event


class Outbox:
    def __init__(self) -> None:
        self._items: deque[Event] = deque()
        self._wake: asyncio.Future[None] | None = None  # set while `while_running` waits

    def emit(self, event: Event) -> None:
        self._items.append(event)
        _set(self._wake)

    def pending(self) -> list[Event]:
        items = list(self._items)
        self._items.clear()
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
        """Events emitted while `task` runs, as they come (live progress), then the rest.
        Woken by an emit or the task's end: no task of its own per event."""
        while not task.done():
            while self._items:
                yield Passed(self._items.popleft())
            if task.done():
                break
            wake = self._wake = asyncio.get_running_loop().create_future()
            woken = partial(_ended, wake)
            task.add_done_callback(woken)
            try:
                await wake
            finally:
                self._wake = None
                task.remove_done_callback(woken)
        for pending in self.pending():
            yield Passed(pending)


def _ended(wake: asyncio.Future[None], _task: asyncio.Future[Any]) -> None:
    _set(wake)


def _set(wake: asyncio.Future[None] | None) -> None:
    if wake is not None and not wake.done():
        wake.set_result(None)
