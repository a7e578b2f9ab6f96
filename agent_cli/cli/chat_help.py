"""`agent chat --help` as typer writes every other command's help: the options are still
defined once (cli/chat_start.py's parser, which parses them); here each becomes a typer option
of a stand-in command, only to be listed. Imported only when help is asked for."""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import Any, Literal, Optional

import typer

HELP = ["-h", "--help"]


def typer_help(parser: argparse.ArgumentParser, description: str) -> str:
    """The parser's options in typer's layout (`agent run --help`'s)."""
    app = typer.Typer(
        add_completion=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": HELP},
    )

    def chat(**_: Any) -> None:
        """Never run: its signature is the parser's options."""

    actions = [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    chat.__signature__ = inspect.Signature([_parameter(a) for a in actions])  # type: ignore[attr-defined]
    app.command("chat", help=description)(chat)
    app.callback()(lambda: None)  # a group: the command keeps its name
    group = typer.main.get_command(app)
    command = group.get_command(typer.Context(group), "chat")  # type: ignore[attr-defined]
    with typer.Context(command, info_name="agent chat", help_option_names=HELP) as ctx:
        return str(command.get_help(ctx)) + "\n"


def _parameter(action: argparse.Action) -> inspect.Parameter:
    decls = action.option_strings
    annotation: Any = Optional[str]  # noqa: UP045 - typer reads it at runtime
    default: Any = None
    if isinstance(action, argparse._StoreTrueAction):
        annotation, default = bool, False
    elif action.choices is not None:
        annotation = Optional[Literal[tuple(action.choices)]]  # noqa: UP045
    elif action.type is Path:
        annotation, default = (Path, action.default) if action.default else (Optional[Path], None)  # noqa: UP045
    elif action.type is not None and action.type is not str:  # a number (--max-cost)
        annotation = Optional[float]  # noqa: UP045
    option = typer.Option(default, *decls, help=action.help)
    kind = inspect.Parameter.KEYWORD_ONLY
    return inspect.Parameter(action.dest, kind, default=option, annotation=annotation)
