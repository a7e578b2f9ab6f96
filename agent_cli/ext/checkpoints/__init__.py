"""Checkpoints: a snapshot of the workspace at the start of every turn, kept in a git directory
of the agent's own (never the user's), and the rewinds that put code and conversation back.

This module stays cheap (a run imports it to know what the extension contributes): each part
imports its own modules when it is first used."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_cli.runtime.extensions.contract import CommandPort, Extension, SlashCommand

if TYPE_CHECKING:
    import typer

    from agent_cli.ext.checkpoints.service import Running
    from agent_cli.policy.turn_hooks import TurnWrapper
    from agent_cli.runtime.extensions.contract import ExtensionContext


def _around_turn(context: ExtensionContext) -> Sequence[TurnWrapper]:
    from agent_cli.ext.checkpoints.turn import TurnCheckpoints

    return [TurnCheckpoints(context)]


def _service(runtime: Running) -> object:
    from agent_cli.ext.checkpoints.service import CheckpointService

    return CheckpointService(runtime)


def _cli() -> typer.Typer:
    from agent_cli.ext.checkpoints.cli import cli

    return cli()


def _slash(name: str) -> SlashCommand:
    about, usage = ABOUT[name]

    def run(port: CommandPort, arg: str) -> None:
        from agent_cli.ext.checkpoints import chat

        chat.run(getattr(chat, COMMANDS[name]), port, arg)

    return SlashCommand(name, about, run, usage)


ABOUT = {
    "/undo": ("take the last turn back: code and conversation (asks first)", ""),
    "/rewind": ("pick a turn of this session to go back to: code, conversation or both", ""),
    "/diff": ("what the last N turns changed (default 1)", "/diff [N]"),
}
COMMANDS = {"/undo": "undo", "/rewind": "rewind_picker", "/diff": "diff"}

EXTENSION = Extension(
    name="checkpoints",
    about="a checkpoint of the workspace at every turn; /undo, /rewind, /diff, agent rewind",
    around_turn=_around_turn,
    service=_service,
    slash_commands=tuple(_slash(name) for name in ABOUT),
    cli=_cli,
)
