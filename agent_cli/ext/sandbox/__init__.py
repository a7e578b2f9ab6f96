"""Confinement of shell commands (SPEC §5, §12): `wrap(argv, policy)` is the one entry point.

The extension `sandbox`: the bash tool's port `"shell_wrapper"` (each command confined), the
run's service (the status bar's word, the line a run says when it cannot confine) and
`/sandbox`. Its settings section is still the agent's own (core/settings/sandbox.py). What
confines a command (bwrap, seccomp, the forwarder) is imported when the first one runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)

if TYPE_CHECKING:
    from agent_cli.ext.sandbox.confine import Confinement

ABOUT = "the sandbox of shell commands: writable paths, hidden ones, allowed hosts"


def _wrapper(context: ExtensionContext) -> object:
    from agent_cli.ext.sandbox.plugin.wrapper import ShellSandbox

    return ShellSandbox()


class SandboxService:
    """The run's sandbox as the front ends show it (the extension's service, made from the
    Runtime): the status bar's word, the line a run says at its start when it cannot confine,
    and `/sandbox`'s rules. Read at each call, as the session, its /add-dir folders and its
    run-later files change; what decides them is imported when first asked."""

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
        from agent_cli.ext.sandbox.probe import startup_notice

        return startup_notice(self.runtime.settings.sandbox)

    def describe(self) -> list[str]:
        from agent_cli.ext.sandbox.confine import describe

        return describe(self.confinement())


def _service(runtime: Any) -> object:
    return SandboxService(runtime)


def _sandbox(port: CommandPort, arg: str) -> None:
    from agent_cli.ext.sandbox.plugin.chat import sandbox_command

    sandbox_command(port, arg)


EXTENSION = Extension(
    name="sandbox",
    about="shell commands confined with bubblewrap (or Seatbelt): writes, secrets, network",
    service=_service,
    ports={"shell_wrapper": _wrapper},
    slash_commands=(SlashCommand("/sandbox", ABOUT, _sandbox),),
)
