"""The run's language servers, as the extension's service: one manager shared by every
session of the run (none started until a file of theirs is edited), the after-edit check it
gives each session when a server is there (configured, or a built-in one on PATH)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_cli.ext.lsp.manager import LspManager, ServerRow
from agent_cli.ext.lsp.plugins import plugin_servers
from agent_cli.policy.trust import TrustStore
from agent_cli.runtime.extensions.bundle_port import bundles_of

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.contract import ExtensionContext


class LspService:
    """`runtime`: the Runtime (its settings and workspace)."""

    def __init__(self, runtime: Any) -> None:
        workspace = runtime.options.workspace
        trusted = lambda: TrustStore().is_trusted(workspace)  # noqa: E731 - asked at each start
        plugins = plugin_servers(bundles_of(runtime.port).bundles())
        self.manager = LspManager(runtime.settings.lsp, workspace, trusted, plugins)

    def diagnoser(self) -> LspManager | None:
        """What checks a session's edits: None when no server could."""
        return self.manager if self.manager.any_server() else None

    def rows(self) -> list[ServerRow]:
        """/lsp: the run's language servers."""
        return self.manager.rows()

    async def aclose(self) -> None:
        await self.manager.aclose()


def service_of(context: ExtensionContext) -> LspService | None:
    found = context.services(context.name)
    return found if isinstance(found, LspService) else None


def after_edit(context: ExtensionContext) -> LspManager | None:
    service = service_of(context)
    return service.diagnoser() if service is not None else None
