"""While a turn's checkpoint is taken beside its first model request, nothing the agent starts
may run yet: a process started then (a user_prompt_submit hook, an MCP server started as the
request goes out) could change the workspace before the snapshot that a rewind goes back to
has seen it. `holding(pending)` for that while; every process start waits in `passed()`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_HELD: list[asyncio.Future[Any]] = []


@contextmanager
def holding(pending: asyncio.Future[Any]) -> Iterator[None]:
    _HELD.append(pending)
    try:
        yield
    finally:
        _HELD.remove(pending)


async def passed() -> None:
    """Once nothing is held (at once when nothing is): whatever the snapshot's outcome. Only
    this event loop's holds count (one another loop left behind would never end here)."""
    loop = asyncio.get_running_loop()
    while waiting := [f for f in _HELD if not f.done() and f.get_loop() is loop]:
        await asyncio.wait(waiting)
