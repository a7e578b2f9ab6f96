"""`agent chat` as typer lists it: its options are defined once, in cli/chat_start.py, and
everything after `chat` is handed there (help included). Built only when typer looks for it
(`agent --help`): `agent chat` itself is parsed without typer (cli/entry.py), and `agent run`
never needs it."""

from __future__ import annotations

import typer
from typer import _click as click
from typer.core import TyperGroup

NAME = "chat"
CHAT_CONTEXT = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def chat(ctx: typer.Context) -> None:
    from agent_cli.cli.chat_start import run_chat

    run_chat(list(ctx.args))


def chat_command(holder: typer.Typer) -> click.Command | None:
    """The command as the app would have made it (`holder`: a Typer with the app's settings)."""
    from agent_cli.cli.chat_start import DESCRIPTION

    holder.command(NAME, help=DESCRIPTION, context_settings=CHAT_CONTEXT, add_help_option=False)(
        chat
    )
    holder.command("-")(lambda: None)  # two commands: typer keeps a group to look into
    group = typer.main.get_command(holder)
    return group.commands.get(NAME) if isinstance(group, TyperGroup) else None
