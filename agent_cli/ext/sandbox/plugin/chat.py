"""`/sandbox` in `agent chat`: the rules in force, one line each."""

from __future__ import annotations

from agent_cli.ext.sandbox import SandboxService
from agent_cli.runtime.extensions.contract import CommandPort


def sandbox_command(port: CommandPort, arg: str) -> None:
    service = port.context.services("sandbox")  # the run's (the Runtime's `extension`)
    assert isinstance(service, SandboxService)
    for line in service.describe():
        port.say(line)
