"""`agent checkpoints [list] | diff ID [--to ID]`: the workspace's checkpoints, without the SDK;
`agent rewind ID [--code] [--conversation]`: take the workspace and/or the conversation back to
one (with no flag both; a checkpoint of the present is taken first)."""

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


def cli() -> typer.Typer:
    """The extension's commands, as the registry line names them."""
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.add_typer(checkpoints_app, name="checkpoints", help="List and diff workspace checkpoints.")
    app.command("rewind", help="Take code and/or conversation back to a checkpoint.")(rewind)
    return app


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


@guarded
def rewind(
    checkpoint_id: str = typer.Argument(..., help="Checkpoint id or a unique prefix."),
    code: bool = typer.Option(False, "--code", help="Put the workspace's files back."),
    conversation: bool = typer.Option(
        False, "--conversation", help="Start a new session with the history before that turn."
    ),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    from agent_cli.ext.checkpoints.rewind import rewind as do_rewind

    store = open_workspace_store(workspace, state_dir)
    target = store.find(checkpoint_id)
    both = not code and not conversation
    result = do_rewind(
        store,
        target,
        code=code or both,
        conversation=conversation or both,
        session_id=target.session_id,
    )
    for line in result.report(target):
        typer.echo(line)
    if result.new_session is not None:
        typer.echo(result.new_session)
