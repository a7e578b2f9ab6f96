"""`agent checkpoints [list] | diff ID [--to ID]`: the workspace's checkpoints, without the SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded
from agent_cli.core.text.counts import counted

if TYPE_CHECKING:
    from agent_cli.ext.checkpoints.records import Checkpoint
    from agent_cli.ext.checkpoints.store import CheckpointStore

checkpoints_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)


def open_workspace_store(workspace: Path, state_dir: Path | None) -> CheckpointStore:
    from agent_cli.core.errors import AgentError
    from agent_cli.core.options import Options
    from agent_cli.ext.checkpoints.rewind import open_store
    from agent_cli.runtime.build import load, resolve_workspace, start_logging

    options = Options(workspace=resolve_workspace(workspace), state_dir=state_dir)
    settings, paths = load(options)
    start_logging(paths, quiet=False)
    store = open_store(paths, options.workspace, settings.checkpoints)
    if store is None:
        raise AgentError(
            "Checkpoints are off here: git is not installed, or "
            '"checkpoints": {"enabled": false} is set.'
        )
    return store


def _files(store: CheckpointStore, checkpoint: Checkpoint, now_tree: str | None) -> list[str]:
    after = store.after_tree(checkpoint) or now_tree
    return [] if after is None else [c.path for c in store.changed(checkpoint.tree, after)]


def _row(store: CheckpointStore, checkpoint: Checkpoint, now_tree: str | None) -> dict[str, Any]:
    return {
        "id": checkpoint.id,
        "session_id": checkpoint.session_id,
        "turn": checkpoint.turn,
        "kind": checkpoint.kind,
        "created": checkpoint.created,
        "prompt": checkpoint.prompt,
        "files": _files(store, checkpoint, now_tree),
        "skipped": [s.path for s in checkpoint.skipped],
    }


@checkpoints_app.callback(invoke_without_command=True)
def checkpoints_default(
    ctx: typer.Context,
    session: str | None = typer.Option(None, "--session", help="Only this session's (prefix)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    if ctx.invoked_subcommand is None:
        list_checkpoints(session=session, as_json=as_json, workspace=workspace, state_dir=state_dir)


@checkpoints_app.command("list")
@guarded
def list_checkpoints(
    session: str | None = typer.Option(None, "--session", help="Only this session's (prefix)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """List the checkpoints of this workspace, newest first, with the files each turn changed."""
    store = open_workspace_store(workspace, state_dir)
    every = store.checkpoints()
    # the newest turn has no end yet if it is running or was cut off: compare with the workspace
    now_tree = store.now().tree if every and store.after_tree(every[-1]) is None else None
    chosen = [c for c in every if session is None or c.session_id.startswith(session)]
    rows = [_row(store, c, now_tree) for c in reversed(chosen)]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("No checkpoints yet.")
    for row in rows:
        files = ", ".join(row["files"][:5]) + (" …" if len(row["files"]) > 5 else "")
        typer.echo(
            f"{row['id']}  {row['created'][:19]}  {row['session_id']}  "
            f"turn {row['turn']:>3}  {row['prompt'][:50]!r}  "
            f"{counted(len(row['files']), 'file')}{': ' + files if files else ''}"
        )


@checkpoints_app.command("diff")
@guarded
def diff_checkpoint(
    checkpoint_id: str = typer.Argument(..., help="Checkpoint id or a unique prefix."),
    to: str | None = typer.Option(None, "--to", help="Another checkpoint (default: now)."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """A unified diff from a checkpoint to another one, or to the workspace as it is now."""
    store = open_workspace_store(workspace, state_dir)
    old = store.find(checkpoint_id)
    new_tree = store.find(to).tree if to else store.now().tree
    typer.echo(store.diff(old.tree, new_tree), nl=False)
