"""`agent sessions list|show`: what was recorded, without importing the SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded, state_paths

if TYPE_CHECKING:
    from agent_cli.session.resume import RestoredSession

sessions_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)


def _summary(state: RestoredSession) -> dict[str, Any]:
    return {
        "id": state.id,
        "title": state.title,
        "started": state.started,
        "last_activity": state.last_activity,
        "model": state.model,
        "messages": len(state.messages),
        "calls": state.calls,
        "first_prompt": state.first_prompt[:80],
        "branch": f"agent/{state.worktree}" if state.worktree else None,
    }


@sessions_app.callback(invoke_without_command=True)
def sessions_default(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    if ctx.invoked_subcommand is None:
        list_sessions(as_json=as_json, workspace=workspace, state_dir=state_dir)


@sessions_app.command("list")
@guarded
def list_sessions(
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """List the sessions of this workspace, newest first."""
    from agent_cli.session.resume import fold, session_files

    paths = state_paths(workspace, state_dir)
    rows = [_summary(fold(p)) for p in session_files(paths)]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("No sessions yet.")
    for row in rows:
        typer.echo(
            f"{row['id']}  {row['last_activity'][:19]}  {row['messages']:>4} msgs  "
            + (f"“{row['title']}”" if row["title"] else row["first_prompt"])
            + (f"  [{row['branch']}]" if row["branch"] else "")
        )


def _render_block(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block["text"])
    if kind == "tool_use":
        return f"[tool_use {block['name']} {json.dumps(block.get('input'), ensure_ascii=False)}]"
    if kind == "tool_result":
        content = block.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        flag = " error" if block.get("is_error") else ""
        return f"[tool_result{flag}] {text[:500]}"
    return f"[{kind}]"


@sessions_app.command("show")
@guarded
def show_session(
    session_id: str = typer.Argument(..., help="Session id or a unique prefix."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """Show one session: its live context, todo list and totals."""
    from agent_cli.core.history import blocks_of
    from agent_cli.session.resume import find_session, fold

    state = fold(find_session(state_paths(workspace, state_dir), session_id))
    typer.echo(f"session {state.id}  model {state.model}  started {state.started}")
    typer.echo(
        f"calls {state.calls}  compactions {state.compactions}  usage {state.usage.model_dump()}"
    )
    if state.todos:
        typer.echo("todos:")
        for item in state.todos:
            mark = {"completed": "[x]", "in_progress": "[>]"}.get(item.status, "[ ]")
            typer.echo(f"  {mark} {item.content}")
    for message in state.messages:
        typer.echo(f"--- {message['role']}")
        for block in blocks_of(message):
            typer.echo(_render_block(block))
