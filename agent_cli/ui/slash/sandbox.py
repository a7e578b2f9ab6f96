"""`/sandbox` and the status bar's sandbox part: how shell commands are confined."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.ext.sandbox.confine import describe

if TYPE_CHECKING:
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.ui.slash.host import Host

HELP = {"/sandbox": "the sandbox of shell commands: writable paths, hidden ones, allowed hosts"}


def status_part(runtime: Runtime) -> str:
    return runtime.sandbox().state()


def sandbox_command(host: Host, arg: str) -> None:
    for line in describe(host.runtime.sandbox()):
        host.say(line)
