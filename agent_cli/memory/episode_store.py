"""Episodes in `notes/index.sqlite3`, beside the notes index, in tables of their own.

- `episodes`: one row per episode (the whole episode as JSON, plus the columns queries use);
- `episode_files`: the files of its `code_changes` (lookup by path);
- `episode_deps`: its `depends_on` edges (the chain);
- `episodes_fts`: FTS5 over title, problem, decisions and open issues (bm25 ranking).

Other modules write to the same database file, so every operation opens a short connection,
WAL mode lets readers and one writer overlap, and a busy timeout absorbs brief write locks.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from agent_cli.core.files.search_index import Schema, connect
from agent_cli.memory.episode import Episode

# bm25 column weights: id (unindexed), title, problem, decisions, open issues
RANK = "bm25(episodes_fts, 0.0, 4.0, 1.5, 2.0, 1.0)"
IN_WORKSPACE = "(:w IS NULL OR workspace = :w)"
IN_WORKSPACE_E = "(:w IS NULL OR e.workspace = :w)"
_TOKEN_RE = re.compile(r"\w+", re.UNICODE)

EPISODES_SCHEMA = Schema(
    name="episodes",
    version=1,
    statements=(
        """CREATE TABLE IF NOT EXISTS episodes (
            id TEXT PRIMARY KEY,
            session TEXT NOT NULL,
            workspace TEXT NOT NULL,
            title TEXT NOT NULL,
            open_issues INTEGER NOT NULL,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            data TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS episodes_by_workspace ON episodes (workspace, updated)",
        "CREATE INDEX IF NOT EXISTS episodes_by_session ON episodes (session, created)",
        """CREATE TABLE IF NOT EXISTS episode_files (
            episode_id TEXT NOT NULL,
            file TEXT NOT NULL,
            PRIMARY KEY (episode_id, file)
        )""",
        "CREATE INDEX IF NOT EXISTS episode_files_by_file ON episode_files (file)",
        """CREATE TABLE IF NOT EXISTS episode_deps (
            episode_id TEXT NOT NULL,
            depends_on TEXT NOT NULL,
            PRIMARY KEY (episode_id, depends_on)
        )""",
        """CREATE VIRTUAL TABLE IF NOT EXISTS episodes_fts USING fts5(
            id UNINDEXED, title, core_problem, key_decisions, open_issues,
            tokenize = 'porter unicode61'
        )""",
    ),
)


def fts_query(text: str) -> str:
    """User words -> an FTS5 query that cannot be a syntax error: quoted terms joined by OR
    (bm25 ranks episodes matching more of them higher)."""
    terms = dict.fromkeys(t.lower() for t in _TOKEN_RE.findall(text))
    return " OR ".join(f'"{t}"' for t in terms)


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class EpisodeStore:
    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._wal = False

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(connect(self.db_path, EPISODES_SCHEMA)) as conn:
            if not self._wal:
                conn.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
                self._wal = True
            with conn:  # one short transaction per operation
                yield conn

    # -- writing --------------------------------------------------------------------------

    def save(self, episode: Episode) -> None:
        """Insert, or replace an episode of the same id (a revision) with all its index rows."""
        data = episode.model_dump_json()
        with self._connect() as conn:
            self._delete_rows(conn, episode.id)
            conn.execute(
                "INSERT INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    episode.id,
                    episode.session,
                    episode.workspace,
                    episode.title,
                    len(episode.open_issues),
                    episode.created,
                    episode.updated,
                    data,
                ),
            )
            conn.executemany(
                "INSERT INTO episode_files VALUES (?, ?)",
                [(episode.id, f) for f in episode.files()],
            )
            conn.executemany(
                "INSERT OR IGNORE INTO episode_deps VALUES (?, ?)",
                [(episode.id, d) for d in episode.depends_on],
            )
            conn.execute(
                "INSERT INTO episodes_fts VALUES (?, ?, ?, ?, ?)",
                (
                    episode.id,
                    episode.title,
                    episode.core_problem,
                    "\n".join(episode.key_decisions),
                    "\n".join(episode.open_issues),
                ),
            )

    @staticmethod
    def _delete_rows(conn: sqlite3.Connection, episode_id: str) -> None:
        for table, column in (
            ("episodes", "id"),
            ("episode_files", "episode_id"),
            ("episode_deps", "episode_id"),
            ("episodes_fts", "id"),
        ):
            conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (episode_id,))

    # -- reading --------------------------------------------------------------------------

    def _episodes(self, sql: str, params: tuple[object, ...] | dict[str, object]) -> list[Episode]:
        with self._connect() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [Episode.model_validate_json(row["data"]) for row in rows]

    def get(self, episode_id: str) -> Episode | None:
        found = self._episodes("SELECT data FROM episodes WHERE id = ?", (episode_id,))
        return found[0] if found else None

    def find(self, prefix: str) -> list[Episode]:
        """Episodes whose id starts with `prefix` (an exact id first)."""
        exact = self.get(prefix)
        if exact is not None:
            return [exact]
        pattern = _like_escape(prefix) + "%"
        return self._episodes(
            "SELECT data FROM episodes WHERE id LIKE ? ESCAPE '\\' ORDER BY created DESC",
            (pattern,),
        )

    def recent(self, workspace: str | None = None, limit: int = 5) -> list[Episode]:
        """Newest first (by last revision)."""
        return self._episodes(
            f"SELECT data FROM episodes WHERE {IN_WORKSPACE} "
            "ORDER BY updated DESC, rowid DESC LIMIT :n",
            {"w": workspace, "n": limit},
        )

    def of_session(self, session: str) -> list[Episode]:
        """Oldest first."""
        return self._episodes(
            "SELECT data FROM episodes WHERE session = ? ORDER BY created, rowid", (session,)
        )

    def search(self, text: str, workspace: str | None = None, limit: int = 10) -> list[Episode]:
        """FTS5 keyword search over title, problem, decisions and open issues, best first."""
        return self._match(fts_query(text), workspace, limit)

    def _match(self, query: str, workspace: str | None, limit: int) -> list[Episode]:
        if not query:
            return []
        return self._episodes(
            "SELECT e.data FROM episodes_fts JOIN episodes e ON e.id = episodes_fts.id "
            f"WHERE episodes_fts MATCH :q AND {IN_WORKSPACE_E} ORDER BY {RANK} LIMIT :n",
            {"q": query, "w": workspace, "n": limit},
        )

    def by_file(self, path: str, workspace: str | None = None, limit: int = 10) -> list[Episode]:
        """Episodes whose code_changes name `path` (or a path ending in it), newest first."""
        # exact, or one path ends the other at a '/' (absolute vs relative, a shorter suffix)
        return self._episodes(
            "SELECT DISTINCT e.data, e.updated FROM episode_files f "
            "JOIN episodes e ON e.id = f.episode_id "
            "WHERE (f.file = :p OR substr(f.file, -length(:p) - 1) = '/' || :p"
            " OR substr(:p, -length(f.file) - 1) = '/' || f.file) "
            f"AND {IN_WORKSPACE_E} ORDER BY e.updated DESC LIMIT :n",
            {"p": path.strip().removeprefix("./"), "w": workspace, "n": limit},
        )

    def with_open_issues(
        self, text: str | None = None, workspace: str | None = None, limit: int = 10
    ) -> list[Episode]:
        """Episodes that still have open issues; with `text`, those whose open issues match it."""
        query = fts_query(text or "")
        if query:
            return self._match(f"open_issues : ({query})", workspace, limit)
        return self._episodes(
            f"SELECT data FROM episodes WHERE open_issues > 0 AND {IN_WORKSPACE} "
            "ORDER BY updated DESC LIMIT :n",
            {"w": workspace, "n": limit},
        )

    def chain(self, episode_id: str, depth: int = 20) -> list[Episode]:
        """The episodes `episode_id` depends on, transitively, nearest first (cycle-safe)."""
        with self._connect() as conn:
            rows = conn.execute(
                "WITH RECURSIVE up(id, depth) AS ("
                " SELECT depends_on, 1 FROM episode_deps WHERE episode_id = ?"
                " UNION SELECT d.depends_on, up.depth + 1 FROM episode_deps d"
                " JOIN up ON d.episode_id = up.id WHERE up.depth < ?)"
                " SELECT e.data, MIN(up.depth) AS depth FROM up JOIN episodes e ON e.id = up.id"
                " WHERE e.id != ? GROUP BY e.id ORDER BY depth, e.created DESC",
                (episode_id, depth, episode_id),
            ).fetchall()
        return [Episode.model_validate_json(row["data"]) for row in rows]

    def dependents(self, episode_id: str) -> list[str]:
        """Ids of the episodes that name `episode_id` in depends_on."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT episode_id FROM episode_deps WHERE depends_on = ? ORDER BY episode_id",
                (episode_id,),
            ).fetchall()
        return [str(row["episode_id"]) for row in rows]

    def existing(self, ids: list[str]) -> list[str]:
        """The ids of `ids` that are stored, in the given order."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        with self._connect() as conn:
            rows = conn.execute(f"SELECT id FROM episodes WHERE id IN ({marks})", ids).fetchall()
        known = {str(row["id"]) for row in rows}
        return [i for i in ids if i in known]
