"""`agent plugin eval`: does a plugin help? The plugins extension's CLI adds the command with
`register(app)`; its code is imported when it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer

ABOUT = "Run cases with and without a plugin, each run isolated; compare pass rate, turns, cost."


def register(app: typer.Typer) -> None:
    """Adds `eval` to the `agent plugin` app."""
    from agent_cli.ext.plugins.evaluate.cli import plugin_eval

    app.command("eval", help=ABOUT)(plugin_eval)
