"""A protocol server's stdio: stdout belongs to the protocol alone. The real stdout is kept for
the protocol's messages and descriptor 1 then points at stderr, so a stray print, a warning or
a child process writing to its inherited stdout can never corrupt the stream."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import BinaryIO

# a prompt with a pasted file or an image is one line of JSON: room for it
LINE_LIMIT = 50 * 1024 * 1024


def claim_stdout() -> BinaryIO:
    """The protocol's own stdout; from now on fd 1 and sys.stdout are stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


async def streams(out: BinaryIO) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
