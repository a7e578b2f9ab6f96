"""What both ends of a session's ACP share: the extension methods' names, the line limit, and
for the server a reader that gives what was already read (answering.serve read the first line
to tell ACP from the line ops) and then the rest, with a task that ends at the client's end."""

from __future__ import annotations

import asyncio

LIMIT = 16 * 1024 * 1024  # one JSON-RPC message a line: a replayed conversation's is large
# extension methods: `_agent/...` on the wire
WAITING, ANSWER, TURN_END = "agent/waiting", "agent/answer", "agent/turn_end"
KEPT: set[asyncio.Task[None]] = set()


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
