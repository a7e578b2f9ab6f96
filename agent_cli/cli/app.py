"""The typer application: `run` here; `chat` (cli/chat.py) and every other command (one module
per command group) are imported when typer looks for them (cli/extension_commands.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import typer

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


app.command("run", help="Run one prompt non-interactively and exit.")(run)


@functools.cache
def command() -> Callable[..., object]:
    """The click command tree typer builds from `app`, built once per process (the warm
    process builds it for all its children)."""
    return typer.main.get_command(app)
