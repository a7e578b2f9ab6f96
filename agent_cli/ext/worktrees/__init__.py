"""Agent worktrees: `agent worktrees` (list, diff, merge, remove, prune), a session in one
(`--worktree`: the port "worktree_session"), and isolated subagents (`task` with `isolation:
worktree`: the port "isolation"), each in a worktree of its own, its diff brought back.

Loading this costs this module: each contribution imports its code when it is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.runtime.extensions.contract import Extension, ExtensionContext

if TYPE_CHECKING:
    import typer

ABOUT = "Agent worktrees: list, diff, merge, remove."


def _isolation(context: ExtensionContext) -> object:
    from agent_cli.ext.worktrees.lanes import Isolation

    return Isolation()


def _sessions(context: ExtensionContext) -> object:
    from agent_cli.ext.worktrees.use import WorktreeSessionsPort

    return WorktreeSessionsPort()


def _cli() -> typer.Typer:
    import typer

    from agent_cli.ext.worktrees.cli import worktrees_app

    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.add_typer(worktrees_app, name="worktrees", help=ABOUT)
    return app


EXTENSION = Extension(
    name="worktrees",
    about="Git worktrees: `agent worktrees`, `--worktree`, isolated subagents.",
    requires=("checkpoints",),  # a merge takes a checkpoint of the workspace first
    cli=_cli,
    ports={"isolation": _isolation, "worktree_session": _sessions},
)
