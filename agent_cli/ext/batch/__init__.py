"""`agent batch`: many one-shot runs, each in its own worktree or clone, on this machine or Ray.

Loading this costs this module: the command's code is imported when it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.runtime.extensions.contract import Extension

if TYPE_CHECKING:
    import typer

ABOUT = "Run many tasks (TASKS.jsonl), each isolated; local or on Ray."


def _cli() -> typer.Typer:
    import typer

    from agent_cli.ext.batch.cli import batch

    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command("batch", help=ABOUT)(batch)
    return app


EXTENSION = Extension(
    name="batch", about="`agent batch`: many isolated runs.", requires=("worktrees",), cli=_cli
)
