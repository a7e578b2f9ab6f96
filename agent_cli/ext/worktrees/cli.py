"""`agent worktrees [list] [--json] | diff NAME | merge NAME | remove NAME | prune`: the agent
worktrees of this repository, without the SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded
from agent_cli.core.text.counts import counted

if TYPE_CHECKING:
    from agent_cli.ext.worktrees.worktree import WorktreeRecord

worktrees_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)
NAME = typer.Argument(..., help="The worktree's name (agent worktrees list).")


def _row(root: Path, record: WorktreeRecord) -> dict[str, Any]:
    from agent_cli.ext.worktrees import worktree as wt

    present = Path(record.path).is_dir()
    files = wt.files_of(wt.diff(record)) if present else []
    return {
        **record.model_dump(),
        "state": "missing" if not present else ("changed" if files else "unchanged"),
        "files": files,
        "in_use": wt.in_use(root, record.name),
    }


@worktrees_app.callback(invoke_without_command=True)
def worktrees_default(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
) -> None:
    if ctx.invoked_subcommand is None:
        list_worktrees(as_json=as_json, workspace=workspace)


@worktrees_app.command("list")
@guarded
def list_worktrees(
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
) -> None:
    """List this repository's agent worktrees: branch, base commit, what changed."""
    from agent_cli.ext.worktrees.home import home
    from agent_cli.ext.worktrees.worktree import records

    root = home(workspace).root
    rows = [_row(root, r) for r in records(root)]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("No worktrees.")
    for row in rows:
        busy = "  (in use)" if row["in_use"] else ""
        typer.echo(
            f"{row['name']}  {row['branch']}  base {row['base'][:10]} ({row['base_ref']})  "
            f"{row['state']}, {counted(len(row['files']), 'file')}{busy}"
        )


@worktrees_app.command("diff")
@guarded
def diff_worktree(name: str = NAME, workspace: Path = opt.WORKSPACE) -> None:
    """The worktree's changes against its base, as a patch."""
    from agent_cli.ext.worktrees.home import home
    from agent_cli.ext.worktrees.worktree import diff, load

    typer.echo(diff(load(home(workspace).root, name)), nl=False)


@worktrees_app.command("merge")
@guarded
def merge_worktree(
    name: str = NAME, workspace: Path = opt.WORKSPACE, state_dir: Path | None = opt.STATE_DIR
) -> None:
    """Apply the worktree's diff to this checkout, after a checkpoint (`agent rewind` undoes
    it); refused, naming the files, when it does not apply cleanly."""
    from agent_cli.ext.worktrees.merge import merge

    for line in merge(workspace, name, state_dir):
        typer.echo(line)


@worktrees_app.command("remove")
@guarded
def remove_worktree(name: str = NAME, workspace: Path = opt.WORKSPACE) -> None:
    """Remove the worktree and its branch (its changes with them)."""
    from agent_cli.core.errors import UsageError
    from agent_cli.ext.worktrees import worktree as wt
    from agent_cli.ext.worktrees.home import home

    root = home(workspace).root
    record = wt.load(root, name)
    if wt.in_use(root, name):
        raise UsageError(f"worktree {name} is in use by a running session")
    wt.remove(root, record)
    typer.echo(f"removed worktree {name} and branch {record.branch}")


@worktrees_app.command("prune")
@guarded
def prune_worktrees(workspace: Path = opt.WORKSPACE) -> None:
    """Remove every worktree no session uses that changed nothing (or whose folder is gone)."""
    from agent_cli.ext.worktrees import worktree as wt
    from agent_cli.ext.worktrees.home import home

    root = home(workspace).root
    for record in wt.records(root):
        gone = not Path(record.path).is_dir()
        if not wt.in_use(root, record.name) and (gone or not wt.changed(record)):
            wt.remove(root, record)
            typer.echo(f"removed worktree {record.name}")
