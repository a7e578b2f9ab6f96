"""The wire of `agent attach`: JSON-RPC 2.0, one message a line, over the session's socket,
written here rather than with the ACP SDK's client, whose schema alone takes ~0.7 s to
import (attach is to draw the history in a fraction of that). The SDK's own client drives the
same socket in the tests (tests/e2e/test_background_attach.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from agent_cli.ext.background.acp.wire import LIMIT

Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]


class AttachError(Exception):
    pass


class Rpc:
    """Requests out with their answers awaited; requests and notifications in, handled by
    `handle(method, params)` (a request's answer is what it returns)."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, handle: Handler
    ) -> None:
        self.reader, self.writer, self.handle = reader, writer, handle
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.next_id = 0
        self.gone = asyncio.ensure_future(self._receive())

    def _send(self, message: dict[str, Any]) -> None:
        self.writer.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        answer = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = answer
        self._send({"id": self.next_id, "method": method, "params": params})
        await asyncio.wait({answer, self.gone}, return_when=asyncio.FIRST_COMPLETED)
        if not answer.done():
            raise AttachError("the session closed the connection")
        return answer.result()

    async def _receive(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while line := await self.reader.readline():
                message = json.loads(line)
                if isinstance(message, dict):
                    self._take(message)

    def _take(self, message: dict[str, Any]) -> None:
        if "method" not in message:
            answer = self.waiting.pop(message.get("id", -1), None)
            if answer is not None and "error" in message:
                answer.set_exception(AttachError(str(message["error"].get("message"))))
            elif answer is not None:
                answer.set_result(message.get("result"))
            return
        task = asyncio.ensure_future(self._handled(message))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _handled(self, message: dict[str, Any]) -> None:
        result = await self.handle(str(message["method"]), message.get("params") or {})
        if "id" in message:
            self._send({"id": message["id"], "result": result})


async def connect(path: str, handle: Handler) -> Rpc:
    reader, writer = await asyncio.open_unix_connection(path, limit=LIMIT)
    return Rpc(reader, writer, handle)
