"""The notes store: notes/<id>.md and .json beside the subagent's .log, and the ticket table in
`notes/index.sqlite3` with FTS5 over conclusion, evidence, open issues and the task.

The files are the record; the index is for finding them (list by session, search by words), so a
lost or interrupted parent can still find the work its subagents did.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.core.files.paths import Paths, make_dirs
from agent_cli.core.files.search_index import Schema, connect, fts_query
from agent_cli.core.payloads import Note
from agent_cli.subagent.note_render import render_markdown

NOTES_SCHEMA = Schema(
    name="notes",
    version=1,
    statements=(
        """CREATE TABLE IF NOT EXISTS tickets (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            parent_tool_use_id TEXT,
            description TEXT NOT NULL,
            task TEXT NOT NULL,
            status TEXT NOT NULL,
            conclusion TEXT NOT NULL,
            confidence TEXT NOT NULL,
            file_refs TEXT NOT NULL,
            open_issues TEXT NOT NULL,
            figures TEXT NOT NULL,
            log_path TEXT NOT NULL,
            created TEXT NOT NULL,
            note TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS tickets_session ON tickets (session_id, created)",
        """CREATE VIRTUAL TABLE IF NOT EXISTS tickets_fts USING fts5(
            id UNINDEXED, conclusion, evidence, open_issues, task
        )""",
    ),
)


class NoteStore:
    """Notes of one state directory."""

    def __init__(self, paths: Paths) -> None:
        self.folder = paths.notes
        self.db_path = paths.index_db

    def log_path(self, note_id: str) -> Path:
        return self.folder / f"{note_id}.log"

    def md_path(self, note_id: str) -> Path:
        return self.folder / f"{note_id}.md"

    def json_path(self, note_id: str) -> Path:
        return self.folder / f"{note_id}.json"

    def save(self, note: Note) -> None:
        """Write .md and .json, then index the ticket (replacing an older row of the same id)."""
        make_dirs(self.folder)
        self.json_path(note.id).write_text(note.model_dump_json(indent=2) + "\n", encoding="utf-8")
        self.md_path(note.id).write_text(render_markdown(note), encoding="utf-8")
        conn = connect(self.db_path, NOTES_SCHEMA)
        try:
            with conn:
                _index(conn, note)
        finally:
            conn.close()

    def notes(self, session_id: str | None = None) -> list[Note]:
        """Newest first; only one session's notes when `session_id` (or a prefix) is given."""
        sql = "SELECT note FROM tickets"
        args: tuple[str, ...] = ()
        if session_id:
            sql, args = sql + " WHERE session_id LIKE ? ESCAPE '\\'", (_like_prefix(session_id),)
        return self._notes(sql + " ORDER BY created DESC, id DESC", args)

    def find(self, prefix: str) -> Note:
        """The note whose id is `prefix` or starts with it; a clear error otherwise."""
        notes = self._notes(
            "SELECT note FROM tickets WHERE id LIKE ? ESCAPE '\\' ORDER BY id",
            (_like_prefix(prefix),),
        )
        exact = [n for n in notes if n.id == prefix]
        if exact:
            return exact[0]
        if not notes:
            raise UsageError(f"No note matches '{prefix}'. List them with: agent notes list")
        if len(notes) > 1:
            names = ", ".join(n.id for n in notes[:5])
            raise UsageError(f"'{prefix}' matches several notes ({names}); give more of the id.")
        return notes[0]

    def search(self, query: str, limit: int = 20) -> list[Note]:
        """Best matches first (bm25 over conclusion, evidence, open issues and task)."""
        return self._notes(
            "SELECT t.note FROM tickets_fts f JOIN tickets t ON t.id = f.id "
            "WHERE tickets_fts MATCH ? ORDER BY bm25(tickets_fts) LIMIT ?",
            (fts_query(query), limit),
        )

    def _notes(self, sql: str, args: tuple[object, ...]) -> list[Note]:
        if not self.db_path.exists():
            return []
        conn = connect(self.db_path, NOTES_SCHEMA)
        try:
            rows = conn.execute(sql, args).fetchall()
        finally:
            conn.close()
        return [Note.model_validate_json(row["note"]) for row in rows]


def _index(conn: sqlite3.Connection, note: Note) -> None:
    conn.execute("DELETE FROM tickets WHERE id = ?", (note.id,))
    conn.execute("DELETE FROM tickets_fts WHERE id = ?", (note.id,))
    conn.execute(
        "INSERT INTO tickets (id, session_id, parent_tool_use_id, description, task, status, "
        "conclusion, confidence, file_refs, open_issues, figures, log_path, created, note) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            note.id,
            note.session_id,
            note.parent_tool_use_id,
            note.description,
            note.task,
            note.status,
            note.conclusion,
            note.confidence,
            json.dumps(note.file_refs, ensure_ascii=False),
            json.dumps(note.open_issues, ensure_ascii=False),
            note.figures.model_dump_json(),
            note.log_path,
            note.created,
            note.model_dump_json(),
        ),
    )
    conn.execute(
        "INSERT INTO tickets_fts (id, conclusion, evidence, open_issues, task) "
        "VALUES (?, ?, ?, ?, ?)",
        (
            note.id,
            note.conclusion,
            "\n".join(note.evidence),
            "\n".join(note.open_issues),
            f"{note.description}\n{note.task}",
        ),
    )


def _like_prefix(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
