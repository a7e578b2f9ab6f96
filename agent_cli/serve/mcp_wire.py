"""`agent mcp serve`'s stdio: the SDK's transport, with every line it cannot read answered.

The SDK's reader hands a line that is not a JSON-RPC message to the server as an exception, and
the server drops it: the client waits for an answer that never comes. JSON-RPC says such a line
gets an error response with a null id (-32700 when it is not JSON at all, -32600 when it is JSON
but no message); the connection then goes on. A blank line is framing, not a message: skipped.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError


def error_for(problem: Exception) -> JSONRPCError | None:
    """The answer to a line the SDK could not read, or None for a blank line."""
    details = problem.errors() if isinstance(problem, ValidationError) else []
    if details and details[0]["type"] == "json_invalid":
        if not str(details[0]["input"]).strip():
            return None
        error = ErrorData(code=PARSE_ERROR, message="Parse error: the line is not JSON")
    else:
        error = ErrorData(code=INVALID_REQUEST, message="Invalid Request: not a JSON-RPC message")
    return JSONRPCError(jsonrpc="2.0", id=None, error=error)


class AnsweringReader:
    """The server's read stream: messages pass; an unreadable line is answered on `write`."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner, self._write = inner, write

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context of the message just received (the dispatcher restores it)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item  # type: ignore[no-any-return]
            answer = error_for(item)
            if answer is not None:
                await self._write.send(SessionMessage(answer))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringReader:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


@asynccontextmanager
async def answering_stdio() -> AsyncIterator[tuple[AnsweringReader, Any]]:
    async with stdio_server() as (read, write):
        yield AnsweringReader(read, write), write


async def serve_stdio(server: MCPServer) -> None:
    """`server.run_stdio_async()`, on the transport that answers unreadable lines."""
    low = server._lowlevel_server  # as the SDK's own run_stdio_async reaches it
    async with answering_stdio() as (read, write):
        await low.run(read, write, low.create_initialization_options())
