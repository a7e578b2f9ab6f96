"""The notes side of `recall`: subagent notes by keywords (the notes index) and by file
(their file_refs), rendered as short hits with ids."""

from __future__ import annotations

import logging
import sqlite3

from agent_cli.core.errors import UsageError
from agent_cli.core.payloads import Note
from agent_cli.core.tool_contract import ToolContext
from agent_cli.memory.episode import relative_path

log = logging.getLogger(__name__)


def _hit(note: Note) -> str:
    line = f"[note {note.id}] {note.conclusion} ({note.status}, confidence {note.confidence})"
    if note.open_issues:
        line += "\n  open: " + "; ".join(note.open_issues[:3])
    return line


def _cites(note: Note, path: str, ctx: ToolContext) -> bool:
    for ref in note.file_refs:
        ref = relative_path(ref.split("#")[0].split(":")[0], ctx.workspace)
        if ref == path or ref.endswith("/" + path) or path.endswith("/" + ref):
            return True
    return False


def search_notes(ctx: ToolContext, query: str | None, file: str | None, limit: int) -> list[str]:
    """Notes matching every word of `query` and/or citing `file`, best first."""
    from agent_cli.subagent.store import NoteStore  # what a call needs, not the first request

    store = NoteStore(ctx.paths)
    found: dict[str, Note] = {}
    try:
        if file:
            path = relative_path(file, ctx.workspace)
            for note in store.notes():
                if _cites(note, path, ctx):
                    found.setdefault(note.id, note)
        if query and query.strip():
            for note in store.search(query, limit):
                found.setdefault(note.id, note)
    except (sqlite3.Error, UsageError) as e:  # no words to search for, or an unreadable index
        log.warning("recall: notes not searched: %s", e)
    return [_hit(n) for n in list(found.values())[:limit]]
