"""The commands beyond `run` and `chat` on the command line (`agent <command>`), each imported
only when it runs: the agent's own (OWN below), a built-in extension's (listed from its
registry line), and the one an installed package's extension adds under its name. `agent
--help` lists them from their declared help lines, importing none (nor the extension contract)."""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

import typer
from typer import _click as click
from typer.core import TyperGroup

from agent_cli.runtime.extensions.builtins import BUILTINS
from agent_cli.runtime.extensions.discovery import Problem, declared, declared_commands, load

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.contract import Extension
    from agent_cli.runtime.extensions.registry import Extensions

CHAT = "chat"  # the agent's own, listed first: cli/chat.py, imported when typer looks for it
HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
OWN = {  # command -> ("module:attribute" of its typer app or function, its help line)
    "sessions": (
        "agent_cli.cli.commands.sessions:sessions_app",
        "List and show recorded sessions.",
    ),
    "notes": ("agent_cli.cli.commands.notes:notes_app", "List, show and search subagent notes."),
    "memory": (
        "agent_cli.cli.commands.memory:memory_app",
        "List, show and search episodic memory.",
    ),
    "server": (
        "agent_cli.cli.commands.server:server_app",
        "The warm process `agent run` uses: status, stop.",
    ),
    "acp": (
        "agent_cli.cli.commands.serving:acp",
        "Serve editors over the Agent Client Protocol (stdio).",
    ),
}


class ExtensionGroup(TyperGroup):
    """The agent's command group: `run` and `chat`, its other commands, then the extensions'."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        own = [CHAT, *super().list_commands(ctx), *OWN]
        return [*own, *(name for name in _declared() if name not in own)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        if cmd_name == CHAT:
            from agent_cli.cli.chat import chat_command

            return chat_command(_holder())
        if cmd_name in OWN:
            return _own(cmd_name)
        return _command(cmd_name) if cmd_name in _declared() else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing, from each command's help line as declared: nothing imported."""
        rows = [(name, about) for name in self.list_commands(ctx) if (about := _about(ctx, name))]
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl(
                    [(n, click.utils.make_default_short_help(a, limit)) for n, a in rows]
                )


def _about(ctx: click.Context, name: str) -> str | None:
    """A command's help line without importing it (None: hidden, or none such)."""
    group = ctx.command
    if isinstance(group, TyperGroup) and name in group.commands:  # `run`, built with the app
        own = group.commands[name]
        return None if own.hidden else own.get_short_help_str(10_000)
    if name == CHAT:
        from agent_cli.cli.chat_start import DESCRIPTION

        return DESCRIPTION
    if name in OWN:
        return OWN[name][1]
    builtin = declared_commands(BUILTINS).get(name)
    if builtin is not None:
        return builtin[1]
    command = _command(name)  # a package's: its help is its own
    return None if command is None or command.hidden else command.get_short_help_str(10_000)


def _own(name: str) -> click.Command | None:
    target, about = OWN[name]
    module, _, attribute = target.partition(":")
    made: Any = getattr(importlib.import_module(module), attribute)
    holder = _holder()
    if isinstance(made, typer.Typer):
        holder.add_typer(made, name=name, help=about)
    else:
        holder.command(name, help=about)(made)
        holder.command("-")(lambda: None)  # two commands: typer keeps a group to look into
    group = typer.main.get_command(holder)
    return group.commands.get(name) if isinstance(group, TyperGroup) else None


def _holder() -> typer.Typer:
    return typer.Typer(rich_markup_mode=None, context_settings=HELP_OPTIONS)  # as the app's


@functools.cache
def _packages() -> Extensions | None:
    """The installed packages' extensions; None when no package declares one (the registry
    then stays unimported)."""
    if not declared():
        return None
    from agent_cli.runtime.extensions.registry import discover, say

    found = discover(builtins=())
    say(found.problems)
    return found


def _declared() -> dict[str, str]:
    """command -> the extension that adds it: the built-ins' (declared), then the packages'."""
    found = {command: ext for command, (ext, _) in declared_commands(BUILTINS).items()}
    for extension in packages.loaded if (packages := _packages()) else ():
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
        packages = _packages()
        return packages.get(name) if packages else None
    loaded = load(builtin)
    if isinstance(loaded, Problem):
        from agent_cli.runtime.extensions.registry import say

        say([loaded])
        return None
    return loaded
