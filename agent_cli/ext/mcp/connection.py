"""One MCP server, through the official `mcp` client: start, list, call, stop, restart.

The client's context is entered and left by one background task per connection (anyio's task
groups must be left by the task that entered them); calls are made from the tools' tasks. Only
this module imports `mcp`, and it is imported only once a server is configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Literal, TextIO

import httpx2
from mcp.client.client import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types import Implementation, ToolListChangedNotification

from agent_cli import __version__
from agent_cli.ext.mcp.servers import ServerEntry
from agent_cli.ext.mcp.settings import McpServerSpec, McpSettings
from agent_cli.ext.mcp.stdio import gated_stdio

log = logging.getLogger(__name__)

State = Literal["starting", "ready", "failed", "stopped"]
Streams = tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]
HTTP_TIMEOUT = httpx2.Timeout(30, read=300)


class CallFailed(Exception):
    """A call that could not be made or did not finish: the model gets this as an error."""


@contextlib.asynccontextmanager
async def open_transport(
    spec: McpServerSpec, workspace: Path, errlog: TextIO
) -> AsyncIterator[Streams]:
    if spec.transport == "stdio":
        assert spec.command is not None  # the spec's validator insists
        cwd = Path(spec.cwd) if spec.cwd else workspace
        async with gated_stdio(spec.command, spec.args, spec.env or None, cwd, errlog) as stdio:
            yield stdio
        return
    assert spec.url is not None
    if spec.transport == "sse":
        async with sse_client(spec.url, headers=spec.headers or None) as streams:
            yield streams
        return
    async with (
        httpx2.AsyncClient(headers=spec.headers, timeout=HTTP_TIMEOUT) as http,
        streamable_http_client(spec.url, http_client=http) as streams,
    ):
        yield streams


class McpConnection:
    """A server's live session. `tools`, `prompts`, `resources` hold their JSON forms."""

    def __init__(
        self, entry: ServerEntry, settings: McpSettings, workspace: Path, errlog: TextIO
    ) -> None:
        self.entry, self.settings, self.workspace, self.errlog = entry, settings, workspace, errlog
        self.state: State = "stopped"
        self.error: str | None = None
        self.tools: list[dict[str, Any]] = []
        self.prompts: list[dict[str, Any]] = []
        self.resources: list[dict[str, Any]] = []
        self.changes = 0  # bumped whenever the tool list is replaced
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._stale = False
        self.on_change: Callable[[], None] = lambda: None  # told when `state` settles

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    async def start(self) -> None:
        """Connect and list; on failure `state` is "failed" and `error` says why. Never raises."""
        self.state, self.error = "starting", None
        self._stop, self._ready = asyncio.Event(), asyncio.Event()
        self._task = asyncio.create_task(self._run(), name=f"mcp:{self.entry.name}")
        waiter = asyncio.ensure_future(self._ready.wait())
        timeout = self.settings.startup_timeout_s
        done, _ = await asyncio.wait(
            {waiter, self._task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        waiter.cancel()
        if self.ready:
            return
        if not done:
            self.error = f"did not start within {timeout:g} s (mcp.startup_timeout_s)"
        await self.stop(keep_error=True)
        if self.error is not None:  # `agent run` has no /mcp panel: else this would go unsaid
            log.warning("mcp server %s did not start: %s", self.entry.name, self.error)

    async def _run(self) -> None:
        try:
            transport = open_transport(self.entry.spec, self.workspace, self.errlog)
            info = Implementation(name="agent", version=__version__)
            async with Client(
                transport,
                mode="legacy",
                cache=None,
                client_info=info,
                message_handler=self._on_message,
            ) as client:
                self._client = client
                await self._list_all(client)
                self.state = "ready"
                self._ready.set()
                self.on_change()
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # a dead or broken server is a state, never a crash
            self.error = self.error or describe(e)
            log.info("mcp server %s ended: %s", self.entry.name, self.error)
        finally:
            self._client = None
            if self.state != "stopped":
                self.state = "failed"
            self.on_change()

    async def _list_all(self, client: Client) -> None:
        caps = client.server_capabilities
        listed = await client.list_tools()
        self.tools = [t.model_dump(mode="json", by_alias=True) for t in listed.tools]
        self.changes += 1
        if caps.prompts is not None:
            prompts = await client.list_prompts()
            self.prompts = [p.model_dump(mode="json", by_alias=True) for p in prompts.prompts]
        if caps.resources is not None:
            found = await client.list_resources()
            self.resources = [r.model_dump(mode="json", by_alias=True) for r in found.resources]

    def down(self) -> str:
        return f"server {self.entry.name} is not running ({self.error or self.state})"

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            self._stale = True
        elif isinstance(message, Exception):
            log.info("mcp server %s sent something unreadable: %s", self.entry.name, message)

    async def refresh_if_stale(self) -> None:
        """tools/list_changed: list again; the new tools are offered from the next request."""
        client = self._client
        if not self._stale or client is None:
            return
        self._stale = False
        try:
            listed = await client.list_tools()
        except Exception as e:
            log.warning("mcp server %s: listing its tools again failed: %s", self.entry.name, e)
            return
        self.tools = [t.model_dump(mode="json", by_alias=True) for t in listed.tools]
        self.changes += 1

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The result's JSON form; CallFailed when the server is down, too slow, or broken."""
        client = self._client
        if client is None or not self.ready:
            raise CallFailed(self.down())
        timeout = self.settings.call_timeout_s
        try:
            async with asyncio.timeout(timeout):
                result = await client.call_tool(tool, arguments)
        except TimeoutError:
            message = f"no answer within {timeout:g} s (mcp.call_timeout_s); the call was cancelled"
            raise CallFailed(message) from None
        except Exception as e:
            if self._task is None or self._task.done() or _closed(e):
                self.error = describe(e)
                await self.stop(keep_error=True)
                raise CallFailed(f"server {self.entry.name} failed: {self.error}") from e
            raise CallFailed(describe(e)) from e
        await self.refresh_if_stale()
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        return await self._request(lambda c: c.get_prompt(name, arguments))

    async def read_resource(self, uri: str) -> dict[str, Any]:
        return await self._request(lambda c: c.read_resource(uri))

    async def _request(self, make: Any) -> dict[str, Any]:
        client = self._client
        if client is None:
            raise CallFailed(self.down())
        try:
            async with asyncio.timeout(self.settings.call_timeout_s):
                result = await make(client)
        except Exception as e:
            raise CallFailed(describe(e)) from e
        dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped

    async def stop(self, keep_error: bool = False) -> None:
        task, self._task = self._task, None
        failed = keep_error and self.error is not None
        self._stop.set()
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), 5)
            except (TimeoutError, Exception):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._client = None
        self.state = "failed" if failed else "stopped"
        if not keep_error:
            self.error = None


def _closed(error: BaseException) -> bool:
    text = str(error).lower()
    return "closed" in text or isinstance(error, (BrokenPipeError, ConnectionError, EOFError))


def describe(error: BaseException) -> str:
    """One line for a failure, whatever shape anyio gave it."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
