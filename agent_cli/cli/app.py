"""The typer application: one module per command group, registered here."""

from __future__ import annotations

import functools
from collections.abc import Callable

import typer

from agent_cli.cli.chat import CHAT_CONTEXT, chat
from agent_cli.cli.chat_start import DESCRIPTION
from agent_cli.cli.commands.memory import memory_app
from agent_cli.cli.commands.notes import notes_app
from agent_cli.cli.commands.server import server_app
from agent_cli.cli.commands.serving import acp
from agent_cli.cli.commands.sessions import sessions_app
from agent_cli.cli.extension_commands import ExtensionGroup
from agent_cli.cli.run import run

app = typer.Typer(
    name="agent",
    cls=ExtensionGroup,
    help="A terminal coding agent: Claude reads, searches, edits and runs code in your repository.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from agent_cli import __version__

        typer.echo(f"agent {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """A terminal coding agent."""


app.command("chat", help=DESCRIPTION, context_settings=CHAT_CONTEXT, add_help_option=False)(chat)
app.command("run", help="Run one prompt non-interactively and exit.")(run)
app.add_typer(sessions_app, name="sessions", help="List and show recorded sessions.")
app.add_typer(notes_app, name="notes", help="List, show and search subagent notes.")
app.add_typer(memory_app, name="memory", help="List, show and search episodic memory.")
app.add_typer(server_app, name="server", help="The warm process `agent run` uses: status, stop.")
app.command("acp", help="Serve editors over the Agent Client Protocol (stdio).")(acp)


@functools.cache
def command() -> Callable[..., object]:
    """The click command tree typer builds from `app`, built once per process (the warm
    process builds it for all its children)."""
    return typer.main.get_command(app)
