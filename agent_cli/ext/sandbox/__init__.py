"""Confinement of shell commands (SPEC §5, §12): `wrap(argv, policy)` is the one entry point.

The extension `sandbox`: the bash tool's port `"shell_wrapper"` (each command confined), the
run's service (the status bar's word, the line a run says when it cannot confine) and
`/sandbox`. Its settings section is still the agent's own (core/settings/sandbox.py). What
confines a command (bwrap, seccomp, the forwarder) is imported when the first one runs."""

from __future__ import annotations

from typing import Any

from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)

ABOUT = "the sandbox of shell commands: writable paths, hidden ones, allowed hosts"


def _wrapper(context: ExtensionContext) -> object:
    from agent_cli.ext.sandbox.plugin.wrapper import ShellSandbox

    return ShellSandbox()


def _service(runtime: Any) -> object:
    from agent_cli.ext.sandbox.plugin.service import SandboxService

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
