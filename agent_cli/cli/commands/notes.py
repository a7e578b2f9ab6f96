"""`agent notes [list] | show ID [--full] | search QUERY`: what subagents handed in, read from
notes/ and its index (no SDK import)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded, state_paths

if TYPE_CHECKING:
    from agent_cli.core.payloads import Note
    from agent_cli.subagent.store import NoteStore

notes_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)

AS_JSON = typer.Option(False, "--json", help="One JSON array.")
SESSION = typer.Option(None, "--session", "-s", help="Only this session's notes (id or prefix).")


def _store(workspace: Path, state_dir: Path | None) -> NoteStore:
    from agent_cli.subagent.store import NoteStore

    return NoteStore(state_paths(workspace, state_dir))


def _row(note: Note) -> dict[str, Any]:
    return {
        "id": note.id,
        "session_id": note.session_id,
        "status": note.status,
        "conclusion": note.conclusion,
        "confidence": note.confidence,
        "created": note.created,
        "description": note.description,
        "file_refs": note.file_refs,
        "missing_refs": note.missing_refs,
        "evidence_checks": [c.model_dump() for c in note.evidence_checks],
        "marks": note.marks,
        "open_issues": note.open_issues,
        "log_path": note.log_path,
        "figures": note.figures.model_dump(),
    }


def _print(notes: list[Note], as_json: bool, empty: str) -> None:
    if as_json:
        typer.echo(json.dumps([_row(n) for n in notes], ensure_ascii=False))
        return
    if not notes:
        typer.echo(empty)
    for note in notes:
        checks = note.evidence_checks
        verified = f"{sum(c.verified for c in checks)}/{len(checks)} verified " if checks else ""
        typer.echo(
            f"{note.id}  {note.created[:19]}  {note.status:<11} {note.confidence:<6} "
            f"{verified}{note.description}: {note.conclusion}"
        )


@notes_app.callback(invoke_without_command=True)
def notes_default(
    ctx: typer.Context,
    session: str | None = SESSION,
    as_json: bool = AS_JSON,
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    if ctx.invoked_subcommand is None:
        list_notes(session=session, as_json=as_json, workspace=workspace, state_dir=state_dir)


@notes_app.command("list")
@guarded
def list_notes(
    session: str | None = SESSION,
    as_json: bool = AS_JSON,
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """List the notes of this workspace, newest first."""
    _print(_store(workspace, state_dir).notes(session), as_json, "No notes yet.")


@notes_app.command("show")
@guarded
def show_note(
    note_id: str = typer.Argument(..., help="Note id or a unique prefix."),
    full: bool = typer.Option(False, "--full", help="Also print the subagent's whole log."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """Show one note; --full adds the subagent's full process."""
    from agent_cli.subagent.note_render import render_markdown

    store = _store(workspace, state_dir)
    note = store.find(note_id)
    typer.echo(render_markdown(note).rstrip("\n"))
    if full:
        log = store.log_path(note.id)
        text = log.read_text(encoding="utf-8") if log.is_file() else f"(no log at {log})\n"
        typer.echo(f"\n## Log ({log})\n{text.rstrip(chr(10))}")


@notes_app.command("search")
@guarded
def search_notes(
    query: str = typer.Argument(..., help="Words to find (all must match)."),
    as_json: bool = AS_JSON,
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """Search conclusions, evidence, open issues and tasks; best match first."""
    _print(_store(workspace, state_dir).search(query), as_json, f"No note matches '{query}'.")
