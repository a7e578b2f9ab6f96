"""`/sandbox` in `agent chat`: the rules in force, one line each."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from agent_cli.runtime.extensions.contract import CommandPort


@runtime_checkable
class Rules(Protocol):
    """The run's sandbox service (the extension's `SandboxService`), as `/sandbox` reads it."""

    def describe(self) -> list[str]: ...


def sandbox_command(port: CommandPort, arg: str) -> None:
    service = port.context.services("sandbox")  # the run's (the Runtime's `extension`)
    assert isinstance(service, Rules)
    for line in service.describe():
        port.say(line)
