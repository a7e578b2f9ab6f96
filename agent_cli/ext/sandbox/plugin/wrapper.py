"""The port `"shell_wrapper"` (tools/shell/confined.py): each bash command confined as the
session's settings say, in the workspace of the context it runs in (a subagent's may be a
worktree of its own)."""

from __future__ import annotations

from agent_cli.core.tool_contract import ToolContext
from agent_cli.ext.sandbox.confine import Confinement
from agent_cli.ext.sandbox.plugin.command import SandboxedCommand
from agent_cli.ext.sandbox.probe import found
from agent_cli.ext.sandbox.wrap import SandboxUnavailable
from agent_cli.tools.shell.confined import ShellRefused


def confinement(ctx: ToolContext) -> Confinement:
    """The sandbox of `ctx`'s commands: its workspace, /add-dir's folders, and the workspace
    files the agent runs outside later (read-only inside)."""
    roots = tuple(ctx.extra_roots)
    return Confinement(
        ctx.settings.sandbox, ctx.workspace, ctx.paths.state_dir, roots, ctx.run_later
    )


class ShellSandbox:
    """A session's shell wrapper; it keeps nothing between commands (the probe is the
    process's, cached while what decides it holds)."""

    def unconfined(self, ctx: ToolContext, unsandboxed: bool) -> bool:
        return confinement(ctx).unconfined(unsandboxed)

    async def confine(
        self, ctx: ToolContext, command: str, argv: list[str], unsandboxed: bool
    ) -> tuple[list[str], SandboxedCommand | None]:
        """Its network goes through a proxy, and its result is told more."""
        sandbox = confinement(ctx)
        try:
            confines = sandbox.confines(unsandboxed) is not None
        except SandboxUnavailable as e:
            raise ShellRefused(str(e)) from None
        if not confines:
            return argv, None
        networked = sandbox.networked(unsandboxed)
        confined = await SandboxedCommand.open(ctx, sandbox, command, networked)
        try:
            return sandbox.argv(argv, unsandboxed, confined.channel, confined.handoff), confined
        except BaseException:
            confined.when_ended(None)  # its proxy and descriptors are let go
            raise

    def prepare(self) -> None:
        found()  # bwrap tried once (a warm process: once for all its children)
