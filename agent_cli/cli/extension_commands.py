"""The extensions' commands on the command line (`agent <command>`): a built-in's are listed
from its registry line and imported only when one of them runs (or `--help` lists them); an
installed package's extension adds the command that bears its name."""

from __future__ import annotations

import functools

import typer
from typer import _click as click
from typer.core import TyperGroup

from agent_cli.runtime.extensions.contract import Extension
from agent_cli.runtime.extensions.discovery import Problem, load
from agent_cli.runtime.extensions.registry import BUILTINS, Extensions, discover, say


class ExtensionGroup(TyperGroup):
    """The agent's command group, with the extensions' commands after its own."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        own = super().list_commands(ctx)
        return [*own, *(name for name in _declared() if name not in own)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in _declared():
            return found
        return _command(cmd_name)


@functools.cache
def _packages() -> Extensions:
    found = discover(builtins=())
    say(found.problems)
    return found


def _declared() -> dict[str, str]:
    """command -> the extension that adds it: the built-ins' (declared), then the packages'."""
    found = {command: d.name for d in BUILTINS for command, _ in d.commands}
    for extension in _packages().loaded:
        if extension.extension.cli is not None:
            found.setdefault(extension.extension.name, extension.extension.name)
    return found


def _command(name: str) -> click.Command | None:
    extension = _extension(_declared()[name])
    if extension is None or extension.cli is None:
        return None
    made = typer.main.get_command(extension.cli())
    if isinstance(made, TyperGroup):  # a typer of several commands: the one named
        return made.commands.get(name, made)
    return made


def _extension(name: str) -> Extension | None:
    builtin = next((d for d in BUILTINS if d.name == name), None)
    if builtin is None:
        return _packages().get(name)
    loaded = load(builtin)
    if isinstance(loaded, Problem):
        say([loaded])
        return None
    return loaded
