"""The run's MCP servers, as the extension's service: one manager shared by every session of
the run, made when the run first asks (the REPL as its prompt is drawn, `agent run` once the
first request is on the wire), its servers started in the background; and what the spine asks
of it through ports: the tools that come and go, `@server:uri` attachments, the chat's parts."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_cli.ext.mcp.manager import McpManager
from agent_cli.ext.mcp.prompts import attach_resources
from agent_cli.ext.mcp.setup import start_mcp
from agent_cli.runtime.extensions.bundle_port import bundles_of

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.contract import ExtensionContext


class McpService:
    """`runtime`: the Runtime (its settings, workspace, state paths and permission mode)."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.manager: McpManager | None = None
        self._started = False

    def start(self, eager: bool = True) -> None:
        """The manager made once (None with nothing configured); its servers started now
        when `eager`, else when the loop first asks it for tools."""
        if self.manager is None and not self._started:
            self._started = True
            runtime = self.runtime
            mode: Callable[[], str] = lambda: str(runtime.permission_mode)  # noqa: E731
            logs, workspace = runtime.paths.logs, runtime.options.workspace
            bundles = bundles_of(runtime.port).bundles()
            self.manager = start_mcp(runtime.settings, workspace, logs, mode, eager, bundles)
        elif eager and self.manager is not None:
            self.manager.start()

    async def attach(self, text: str) -> str:
        return await attach_resources(self.manager, text)

    async def aclose(self) -> None:
        if self.manager is not None:
            await self.manager.aclose()


def service_of(context: ExtensionContext) -> McpService | None:
    found = context.services(context.name)
    return found if isinstance(found, McpService) else None


def tool_source(context: ExtensionContext) -> McpManager | None:
    """The session's MCP tools: the run's manager, or (a session assembled without a Runtime)
    one of its own, its servers starting in the background."""
    service = service_of(context)
    if service is not None:
        service.start(eager=False)
        return service.manager
    mode: Callable[[], str] = lambda: context.settings.permissions.mode  # noqa: E731
    bundles = bundles_of(context.ports).bundles()
    return start_mcp(context.settings, context.workspace, context.paths.logs, mode, True, bundles)


def run_start(context: ExtensionContext) -> Callable[[bool], None] | None:
    service = service_of(context)
    return service.start if service is not None else None


def attachments(context: ExtensionContext) -> Callable[[str], Any] | None:
    service = service_of(context)
    return service.attach if service is not None else None
