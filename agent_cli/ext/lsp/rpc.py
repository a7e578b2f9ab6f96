"""JSON-RPC 2.0 over a language server's stdio, with LSP's `Content-Length` framing.

Written here rather than taken from a client library: the agent needs four requests and one
notification, `pygls`' client pulls in its whole server stack and `lsprotocol`'s models (a
second of import), and `multilspy` downloads servers. This layer is small, and it is strict
about what a broken server does: garbage, a frame too large or a closed pipe end the
connection with a reason instead of hanging a turn."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

MAX_FRAME = 16 * 1024 * 1024  # a diagnostics frame is kilobytes; more is a server gone wrong
Notification = Callable[[str, Any], None]


class RpcClosed(Exception):
    """The connection ended (the server exited, or spoke something that is not LSP)."""


class RpcError(Exception):
    """The server answered a request with an error."""


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def read_frame(reader: asyncio.StreamReader) -> dict[str, Any]:
    """One message; RpcClosed at the end of the stream or on anything that is not a frame."""
    length: int | None = None
    while True:
        line = await reader.readline()
        if not line:
            raise RpcClosed("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, sep, value = line.decode("ascii", "replace").partition(":")
        if not sep:
            raise RpcClosed(f"not an LSP header: {line[:80]!r}")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise RpcClosed(f"bad Content-Length: {value.strip()[:40]!r}") from None
    if length is None or not 0 <= length <= MAX_FRAME:
        raise RpcClosed(f"frame without a usable Content-Length ({length})")
    body = await reader.readexactly(length)
    try:
        message = json.loads(body)
    except ValueError:
        raise RpcClosed(f"a frame that is not JSON: {body[:80]!r}") from None
    if not isinstance(message, dict):
        raise RpcClosed("a frame that is not a JSON object")
    return message


class LspConnection:
    """Requests out, their answers matched by id; server notifications to `on_notify`; server
    requests (configuration, progress, registrations) answered with null, which every server
    takes as "the client has nothing to say"."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_notify: Notification,
        on_close: Callable[[], None] = lambda: None,
    ) -> None:
        self._reader, self._writer, self._on_notify = reader, writer, on_notify
        self._on_close = on_close
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 0
        self.closed: str | None = None  # why the connection ended
        self._task = asyncio.get_running_loop().create_task(self._read_all())

    async def request(self, method: str, params: Any, timeout: float) -> Any:
        if self.closed is not None:
            raise RpcClosed(self.closed)
        self._next_id += 1
        ident = self._next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
            return await asyncio.wait_for(future, timeout)
        finally:
            self._pending.pop(ident, None)

    async def notify(self, method: str, params: Any) -> None:
        if self.closed is not None:
            raise RpcClosed(self.closed)
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def _send(self, message: dict[str, Any]) -> None:
        try:
            self._writer.write(frame(message))
            await self._writer.drain()
        except (ConnectionError, RuntimeError) as e:
            self._close(f"cannot write to the server: {e}")
            raise RpcClosed(self.closed or "closed") from e

    async def _read_all(self) -> None:
        try:
            while True:
                await self._dispatch(await read_frame(self._reader))
        except RpcClosed as e:
            self._close(str(e))
        except (asyncio.IncompleteReadError, ConnectionError) as e:
            self._close(f"the server's output broke off: {e}")

    async def _dispatch(self, message: dict[str, Any]) -> None:
        ident, method = message.get("id"), message.get("method")
        if isinstance(method, str) and ident is not None:  # a request of the server's
            await self._send({"jsonrpc": "2.0", "id": ident, "result": None})
        elif isinstance(method, str):
            self._on_notify(method, message.get("params"))
        elif isinstance(ident, int) and ident in self._pending:
            future = self._pending[ident]
            if future.done():
                return
            if "error" in message:
                error = message["error"]
                text = error.get("message", error) if isinstance(error, dict) else error
                future.set_exception(RpcError(str(text)))
            else:
                future.set_result(message.get("result"))

    def _close(self, why: str) -> None:
        if self.closed is None:
            self.closed = why
            log.info("language server connection closed: %s", why)
            self._on_close()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(RpcClosed(why))

    async def aclose(self) -> None:
        self._close("closed by the agent")
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
        with contextlib.suppress(Exception):
            self._writer.close()
