"""`agent rewind ID [--code] [--conversation]`: take the workspace and/or the conversation back
to a checkpoint. With no flag both. A checkpoint of the present is taken first."""

from __future__ import annotations

from pathlib import Path

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded


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
    from agent_cli.cli.commands.checkpoints import open_workspace_store
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
