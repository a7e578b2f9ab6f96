"""A turn's checkpoint is taken before anything the agent starts may change the workspace: a
tool that is not read-only about to run (tools/registry.py), a process about to start (a
user_prompt_submit hook, an MCP or language server: core/outside/watch.py). `holding(start)`
for the turn: the first `passed()` starts the snapshot (`start()`, once) and every one waits for
it; a turn that changes nothing starts it as it ends. Rewinding it takes back what the agent
changed, not what the user edited while the agent only read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(eq=False)
class Hold:
    """One turn's snapshot: started by the first that needs it, then waited for by all."""

    start: Callable[[], asyncio.Future[Any]]
    loop: asyncio.AbstractEventLoop
    taking: asyncio.Future[Any] | None = None

    def begun(self) -> asyncio.Future[Any]:
        if self.taking is None:
            self.taking = self.start()
        return self.taking


_HELD: list[Hold] = []


@contextmanager
def holding(start: Callable[[], asyncio.Future[Any]]) -> Iterator[Hold]:
    hold = Hold(start, asyncio.get_running_loop())
    _HELD.append(hold)
    try:
        yield hold
    finally:
        _HELD.remove(hold)


async def passed() -> None:
    """Once this loop's turn has its snapshot (started here if nobody needed it yet), whatever
    its outcome; at once when no turn holds one. Only this event loop's holds count (one
    another loop left behind would never end here)."""
    loop = asyncio.get_running_loop()
    while waiting := [t for h in _HELD if h.loop is loop and not (t := h.begun()).done()]:
        await asyncio.wait(waiting)
