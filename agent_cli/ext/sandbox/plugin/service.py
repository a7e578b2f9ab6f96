"""The run's sandbox as the front ends show it (the extension's service): the status bar's
word, the line a run says at its start when it cannot confine, and `/sandbox`'s rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_cli.ext.sandbox.probe import startup_notice

if TYPE_CHECKING:
    from agent_cli.ext.sandbox.confine import Confinement


class SandboxService:
    """Made from the Runtime (`runtime.extension("sandbox")`); read at each call, as the
    session, its /add-dir folders and its run-later files change."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime

    def confinement(self) -> Confinement:
        """How this session's shell commands are confined."""
        from agent_cli.ext.sandbox.confine import Confinement

        runtime = self.runtime
        added, later = runtime.options.add_dirs, runtime.session.tool_ctx.run_later
        workspace, state = runtime.options.workspace, runtime.paths.state_dir
        return Confinement(runtime.settings.sandbox, workspace, state, added, later)

    def state(self) -> str:
        return self.confinement().state()

    def notice(self) -> str | None:
        return startup_notice(self.runtime.settings.sandbox)

    def describe(self) -> list[str]:
        from agent_cli.ext.sandbox.confine import describe

        return describe(self.confinement())
