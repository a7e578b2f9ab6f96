"""The run's language servers, as the extension's service: one manager shared by every
session of the run (none started until a file of theirs is edited), the after-edit check it
gives each session when a server is there (configured, or a built-in one on PATH). The
manager and the servers' code are imported when an edit is first checked (or `/lsp` asks),
not before the first request."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.core.diagnosing import EditReport
from agent_cli.ext.lsp.settings import lsp_settings
from agent_cli.policy.trust import TrustStore

if TYPE_CHECKING:
    from agent_cli.ext.lsp.manager import LspManager, ServerRow
    from agent_cli.ext.lsp.settings import LspServerSpec, LspSettings
    from agent_cli.runtime.extensions.contract import ExtensionContext


class LspService:
    """`runtime`: the Runtime (its settings and workspace); `could`: whether a server could
    check an edit, known without the manager (the extension's `could_serve`)."""

    def __init__(self, runtime: Any, could: Callable[[LspSettings, Path], bool]) -> None:
        workspace = runtime.options.workspace
        self._settings, self._workspace = lsp_settings(runtime.settings), workspace
        self._trusted = lambda: TrustStore().is_trusted(workspace)  # asked at each start
        self._port = runtime.port  # enabled plugins' servers, read when first needed
        self._plugins: dict[str, tuple[LspServerSpec, str]] | None = None
        self._manager: LspManager | None = None
        self._checks = Checks(self)
        self._could_serve = could
        self._could: bool | None = None  # looked up on PATH once, as the manager does

    @property
    def manager(self) -> LspManager:
        if self._manager is None:
            from agent_cli.ext.lsp.manager import LspManager

            plugins = self.plugin_servers()
            self._manager = LspManager(self._settings, self._workspace, self._trusted, plugins)
        return self._manager

    def plugin_servers(self) -> dict[str, tuple[LspServerSpec, str]]:
        """The enabled plugins' servers; without the plugins extension, nothing is imported."""
        if self._plugins is None:
            from agent_cli.runtime.bundles import PORT

            self._plugins = {}
            if (source := self._port(PORT)) is not None:
                from agent_cli.ext.lsp.plugins import plugin_servers
                from agent_cli.runtime.extensions.bundle_port import bundles_of

                self._plugins = plugin_servers(bundles_of(lambda name: source).bundles())
        return self._plugins

    def diagnoser(self) -> LspManager | Checks | None:
        """What checks a session's edits: None when no server could."""
        if self._manager is not None:
            return self._manager if self._manager.any_server() else None
        if self._could is None:
            could = self._could_serve(self._settings, self._workspace)
            self._could = could or bool(self.plugin_servers())
        return self._checks if self._could else None

    def rows(self) -> list[ServerRow]:
        """/lsp: the run's language servers."""
        return self.manager.rows()

    async def aclose(self) -> None:
        if self._manager is not None:  # nothing was started without it
            await self._manager.aclose()


class Checks:
    """The manager's checks (core/diagnosing's Diagnoser), the manager made at the first."""

    def __init__(self, service: LspService) -> None:
        self._service = service

    async def after_edit(self, path: Path) -> EditReport:
        return await self._service.manager.after_edit(path)

    async def report(self, paths: list[Path]) -> str:
        return await self._service.manager.report(paths)


def service_of(context: ExtensionContext) -> LspService | None:
    found = context.services(context.name)
    return found if isinstance(found, LspService) else None


def after_edit(context: ExtensionContext) -> LspManager | Checks | None:
    service = service_of(context)
    return service.diagnoser() if service is not None else None
