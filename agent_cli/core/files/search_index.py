"""`notes/index.sqlite3`: one sqlite database, several table groups side by side.

Each group (the notes' tickets here; episodes later) declares a `Schema` and passes it to
`connect`, which creates what is missing. A group's tables are its own, so adding one never
touches another. Full-text search uses FTS5; `fts_query` turns what a user typed into a query
that cannot be a syntax error.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.errors import AgentError, UsageError
from agent_cli.core.files.paths import make_dirs

BUSY_TIMEOUT_S = 10.0  # several processes (or subagents finishing together) may write at once


class IndexUnreadableError(AgentError, sqlite3.DatabaseError):
    """The index file cannot be opened: one line for the user (an AgentError), still an
    sqlite3.Error for the callers that skip an unreadable index."""


@dataclass(frozen=True)
class Schema:
    """A table group: `statements` must be idempotent (CREATE ... IF NOT EXISTS)."""

    name: str
    version: int
    statements: tuple[str, ...]


_REGISTRY = """
CREATE TABLE IF NOT EXISTS schemas (
    name TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)
"""


def connect(path: Path, *schemas: Schema) -> sqlite3.Connection:
    """Open the index (created if needed) with `schemas` in place. Rows come back as
    `sqlite3.Row`. The caller closes the connection."""
    make_dirs(path.parent)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
    conn.row_factory = sqlite3.Row
    try:
        with conn:
            conn.execute(_REGISTRY)
            for schema in schemas:
                _ensure(conn, schema)
    except sqlite3.DatabaseError as e:
        conn.close()
        hint = "" if isinstance(e, sqlite3.OperationalError) else "; move it aside to start anew"
        raise IndexUnreadableError(f"cannot use the index {path}: {e}{hint}") from e
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _ensure(conn: sqlite3.Connection, schema: Schema) -> None:
    row = conn.execute("SELECT version FROM schemas WHERE name = ?", (schema.name,)).fetchone()
    if row is not None and row["version"] >= schema.version:
        return
    for statement in schema.statements:
        conn.execute(statement)
    conn.execute(
        "INSERT INTO schemas (name, version) VALUES (?, ?) "
        "ON CONFLICT(name) DO UPDATE SET version = excluded.version",
        (schema.name, schema.version),
    )


def fts_query(text: str) -> str:
    """Every word of `text` as a quoted FTS5 term (all must match); punctuation and FTS5
    operators typed by the user are taken as plain text."""
    words = re.findall(r"\w+", text)
    if not words:
        raise UsageError(f"Nothing to search for in '{text}': give at least one word.")
    return " ".join(f'"{word}"' for word in words)
