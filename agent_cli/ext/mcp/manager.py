"""Every configured MCP server of a session: started in the background, offered as tools once
ready, restarted on the next call after a crash (at most `mcp.max_restarts` times).

The registry asks `offered()` before each request; a server not ready yet is simply not in it,
so nothing ever waits for a server. When all the schemas would pass the budget, the model gets
`mcp_tool_search` instead and the tools it finds are offered from its next request on.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from agent_cli.context.tokens import value_tokens
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import AnyTool, ToolResult
from agent_cli.ext.mcp.names import clean, tool_name
from agent_cli.ext.mcp.results import to_tool_result
from agent_cli.ext.mcp.search import Candidate, McpToolSearch
from agent_cli.ext.mcp.servers import ServerEntry
from agent_cli.ext.mcp.settings import mcp_settings
from agent_cli.ext.mcp.tool import McpTool, make_tool

if TYPE_CHECKING:
    from agent_cli.ext.mcp.connection import McpConnection

log = logging.getLogger(__name__)
BUDGET_SHARE = 0.10
CONNECTION_MODULE = "agent_cli.ext.mcp.connection"


async def import_aside(module: str) -> None:
    """Import `module` off the event loop: importing `mcp` takes a second of CPU. A daemon
    thread, so an exit meanwhile (a one-shot run already answered) is not held up by it."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def settle(error: BaseException | None) -> None:
        if done.done():
            return
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)

    def work() -> None:
        error: BaseException | None = None
        try:
            importlib.import_module(module)
        except Exception as e:  # told to the awaiting task, as to_thread would
            error = e
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(settle, error)

    threading.Thread(target=work, name="import-mcp", daemon=True).start()
    await done


@dataclass
class ServerStatus:
    name: str
    source: str
    state: str  # starting / ready / failed / stopped / not trusted
    tools: list[str]
    error: str | None
    launch: str = ""  # the command line or URL, as written


class McpManager:
    def __init__(
        self,
        entries: list[ServerEntry],
        blocked: dict[str, str],
        settings: Settings,
        workspace: Path,
        log_dir: Path,
        mode: Callable[[], str] = lambda: "default",
    ) -> None:
        self.entries = {e.name: e for e in entries}
        self.blocked = blocked  # name -> why it was not started (trust)
        self.blocked_entries: dict[str, ServerEntry] = {}
        self.settings, self.workspace, self.log_dir, self.mode = settings, workspace, log_dir, mode
        self.connections: dict[str, McpConnection] = {}
        self.restarts: dict[str, int] = {}
        self.selected: set[str] = set()  # found through mcp_tool_search
        self._starting: dict[str, asyncio.Task[None]] = {}
        self._logs: list[TextIO] = []
        self._cache: tuple[tuple[Any, ...], list[McpTool]] | None = None
        self._offer: tuple[tuple[Any, ...], list[AnyTool]] | None = None
        self._search = McpToolSearch(self._candidates, self.selected.update)
        self._deferred = False
        self._boot: asyncio.Task[None] | None = None
        self.on_change: Callable[[], None] = lambda: None  # a server became ready, or ended

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        """Start every runnable server in the background; returns at once. Outside an event
        loop, they start when the loop first asks for tools."""
        self._deferred = True
        self._start_deferred()

    def _start_deferred(self) -> None:
        if not self._deferred:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._deferred = False
        if self.entries and self._boot is None:
            self._boot = loop.create_task(self._start_all())

    async def _start_all(self) -> None:
        await import_aside(CONNECTION_MODULE)
        for name in self.entries:
            self._spawn(name)

    async def _booted(self) -> None:
        self._start_deferred()
        if self._boot is not None:
            await self._boot

    def _spawn(self, name: str) -> asyncio.Task[None]:
        connection = self._connection(name)
        task = asyncio.get_running_loop().create_task(connection.start())
        self._starting[name] = task
        return task

    def _connection(self, name: str) -> McpConnection:
        from agent_cli.ext.mcp.connection import McpConnection  # imports mcp: only once one starts

        if name not in self.connections:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            errlog = (self.log_dir / f"mcp-{clean(name)}.log").open("a", encoding="utf-8")
            self._logs.append(errlog)
            entry = self.entries[name]
            connection = McpConnection(entry, mcp_settings(self.settings), self.workspace, errlog)
            connection.on_change = lambda: self.on_change()
            self.connections[name] = connection
        return self.connections[name]

    async def wait_started(self) -> None:
        """Until every start under way has ended (ready or failed): for listings and tests."""
        await self._booted()
        await asyncio.gather(*self._starting.values(), return_exceptions=True)

    async def reconnect(self, name: str) -> ServerStatus:
        """`/mcp reconnect NAME`: stop, start again, wait; the restart count starts over."""
        if name not in self.entries:
            known = ", ".join(self.entries) or "none"
            raise KeyError(f"no MCP server named {name!r} (configured: {known})")
        await self._booted()
        await self._connection(name).stop()
        self.restarts[name] = 0
        await self._spawn(name)
        return self.status_of(name)

    async def aclose(self) -> None:
        if self._boot is not None and not self._boot.done():
            self._boot.cancel()
            with contextlib.suppress(BaseException):
                await self._boot
        for task in self._starting.values():
            task.cancel()
        await asyncio.gather(*self._starting.values(), return_exceptions=True)
        await asyncio.gather(*(c.stop() for c in self.connections.values()), return_exceptions=True)
        for handle in self._logs:
            with contextlib.suppress(OSError):
                handle.close()

    # -- status -------------------------------------------------------------------------------

    def status_of(self, name: str) -> ServerStatus:
        entry = self.entries.get(name) or self.blocked_entries.get(name)
        connection = self.connections.get(name)
        source = str(entry.source) if entry else ""
        launch = entry.written.launch_line() if entry else ""
        if connection is None:
            state = "starting" if name in self.entries else "not trusted"
            return ServerStatus(name, source, state, [], self.blocked.get(name), launch)
        tools = [t["name"] for t in connection.tools] if connection.ready else []
        return ServerStatus(name, source, connection.state, tools, connection.error, launch)

    def status(self) -> list[ServerStatus]:
        return [self.status_of(n) for n in [*self.entries, *self.blocked]]

    def counts(self) -> tuple[int, int]:
        """(ready, configured) for the status line."""
        ready = sum(1 for c in self.connections.values() if c.ready)
        return ready, len(self.entries) + len(self.blocked)

    # -- tools --------------------------------------------------------------------------------

    def offered(self) -> list[AnyTool]:
        """Asked before each request and at each call: decided once per change."""
        self._start_deferred()
        tools: list[AnyTool] = list(self.all_tools())
        mode = self.mode()
        listed = self._cache[0] if self._cache else ()  # which servers, at which tool list
        key = (listed, mode, frozenset(self.selected))
        if self._offer is not None and self._offer[0] == key:
            return self._offer[1]
        if mode == "plan":  # plan mode: only what the server calls read-only
            tools = [t for t in tools if t.read_only]
        if sum(value_tokens(t.schema()) for t in tools) > self.budget():
            tools = [self._search, *(t for t in tools if t.name in self.selected)]
        self._offer = (key, tools)
        return tools

    def budget(self) -> int:
        configured = mcp_settings(self.settings).tool_budget_tokens
        window = self.settings.context_window()
        return configured if configured is not None else int(window * BUDGET_SHARE)

    def all_tools(self) -> list[McpTool]:
        """Every ready server's tools, named in a stable order (so names never move around)."""
        ready = [(n, c) for n, c in self.connections.items() if self._offering(n, c)]
        key = tuple((n, c.changes) for n, c in ready)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        taken: set[str] = set()
        tools = [
            make_tool(tool_name(server, listed["name"], taken), server, listed, self.call)
            for server, connection in ready
            for listed in connection.tools
        ]
        self._cache = (key, tools)
        return tools

    def _offering(self, name: str, connection: McpConnection) -> bool:
        """Ready, or crashed with restarts left: its next call restarts it, so the tools stay."""
        if connection.ready:
            return True
        restartable = self.restarts.get(name, 0) < mcp_settings(self.settings).max_restarts
        return connection.state == "failed" and bool(connection.tools) and restartable

    def _candidates(self) -> list[Candidate]:
        return [
            Candidate(t.name, str(t.definition["description"]).split("\n")[0][:160])
            for t in self.all_tools()
        ]

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> ToolResult:
        from agent_cli.ext.mcp.connection import CallFailed

        connection = await self.running(server)
        label = f"{server}: {tool}"
        try:
            data = await connection.call(tool, arguments)
        except CallFailed as e:
            log.warning("mcp %s failed: %s", label, e)
            return ToolResult(f"MCP tool {tool} of server {server}: {e}", True, f"{label}: error")
        return to_tool_result(data, label)

    async def running(self, server: str) -> McpConnection:
        """The server's connection, restarted first if it died (within `mcp.max_restarts`)."""
        await self._booted()
        connection = self._connection(server)
        starting = self._starting.get(server)
        if starting is not None and not starting.done():
            await starting
        if not connection.ready and connection.state != "starting":
            used = self.restarts.get(server, 0)
            if used < mcp_settings(self.settings).max_restarts:
                self.restarts[server] = used + 1
                log.warning(
                    "mcp server %s: restarting (%d of at most %d)",
                    server,
                    used + 1,
                    mcp_settings(self.settings).max_restarts,
                )
                await self._spawn(server)
        return connection

    # -- prompts and resources ----------------------------------------------------------------

    def prompts(self) -> list[tuple[str, dict[str, Any]]]:
        return [(n, p) for n, c in self.connections.items() if c.ready for p in c.prompts]

    def resources(self) -> list[tuple[str, dict[str, Any]]]:
        return [(n, r) for n, c in self.connections.items() if c.ready for r in c.resources]
