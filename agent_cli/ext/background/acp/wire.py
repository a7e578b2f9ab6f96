"""What both ends of a session's ACP share: the extension methods' names, the line limit, and
for the server a reader that gives what was already read (answering.serve read the first line
to tell ACP from the line ops) and then the rest, with a task that ends at the client's end."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

LIMIT = 16 * 1024 * 1024  # one JSON-RPC message a line: a replayed conversation's is large
# extension methods: `_agent/...` on the wire
WAITING, ANSWER, TURN_END = "agent/waiting", "agent/answer", "agent/turn_end"
# a client that says EVENTS in initialize's clientCapabilities `_meta` gets the session's own
# events as EVENT notifications (acp_events.py), and ANSWERED when what waited is answered
EVENTS, EVENT, ANSWERED = "agent/events", "agent/event", "agent/answered"
KEPT: set[asyncio.Task[None]] = set()


@dataclass
class ExtNote:
    """An extension notification the session sends: `_agent/turn_end` ({"stop"}) when a turn
    ends, and an events client's (acp_events.py)."""

    method: str
    params: dict[str, Any]


def relayed(
    first: bytes, reader: asyncio.StreamReader
) -> tuple[asyncio.StreamReader, asyncio.Task[None]]:
    """`first` then everything `reader` gets; the task ends at its end of file."""
    inner = asyncio.StreamReader(limit=LIMIT)
    if first:
        inner.feed_data(first)

    async def pump() -> None:
        try:
            while chunk := await reader.read(65536):
                inner.feed_data(chunk)
        except OSError:
            pass
        finally:
            inner.feed_eof()

    task = asyncio.ensure_future(pump())
    KEPT.add(task)
    task.add_done_callback(KEPT.discard)
    return inner, task
