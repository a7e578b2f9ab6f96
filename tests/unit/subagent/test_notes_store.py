"""The notes store: files, the ticket table, FTS5 search, prefix lookup; the index shared with
other table groups."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent_cli.core.errors import UsageError
from agent_cli.core.files.paths import Paths
from agent_cli.core.files.search_index import Schema, connect, fts_query
from agent_cli.core.payloads import Note
from agent_cli.subagent.store import NOTES_SCHEMA, NoteStore


def make_note(note_id: str, session: str = "s1", **over: object) -> Note:
    fields: dict[str, object] = {
        "id": note_id,
        "session_id": session,
        "description": f"task {note_id}",
        "task": "look into the parser",
        "status": "completed",
        "conclusion": f"conclusion of {note_id}",
        "confidence": "medium",
        "log_path": f"notes/{note_id}.log",
        "file_refs": [f"notes/{note_id}.log"],
        "created": f"2025-01-01T00:00:0{note_id[-1]}+00:00",
    }
    fields.update(over)
    return Note.model_validate(fields)


@pytest.fixture
def store(tmp_path: Path) -> NoteStore:
    return NoteStore(Paths(tmp_path))


def test_save_writes_md_json_and_a_ticket(store: NoteStore, tmp_path: Path):
    note = make_note("note-1", evidence=["parser.py:10 off by one"])
    store.save(note)
    assert json.loads((tmp_path / "notes" / "note-1.json").read_text())["id"] == "note-1"
    md = (tmp_path / "notes" / "note-1.md").read_text()
    assert md.startswith("# task note-1\n\n[subagent note · completed] conclusion of note-1")
    assert "look into the parser" in md
    conn = sqlite3.connect(tmp_path / "notes" / "index.sqlite3")
    row = conn.execute(
        "SELECT id, session_id, status, confidence, log_path, task FROM tickets"
    ).fetchone()
    conn.close()
    assert row == (
        "note-1",
        "s1",
        "completed",
        "medium",
        "notes/note-1.log",
        "look into the parser",
    )
    assert store.notes() == [note]


def test_list_is_newest_first_and_filters_by_session(store: NoteStore):
    for note_id, session in (("note-1", "s1"), ("note-2", "s2"), ("note-3", "s1")):
        store.save(make_note(note_id, session))
    assert [n.id for n in store.notes()] == ["note-3", "note-2", "note-1"]
    assert [n.id for n in store.notes("s1")] == ["note-3", "note-1"]
    assert store.notes("s_") == []  # LIKE wildcards are literal


def test_saving_again_replaces_the_ticket(store: NoteStore):
    store.save(make_note("note-1"))
    store.save(make_note("note-1", conclusion="revised finding"))
    assert [n.conclusion for n in store.notes()] == ["revised finding"]
    assert [n.id for n in store.search("revised")] == ["note-1"]
    assert store.search("conclusion") == []


def test_search_covers_conclusion_evidence_issues_and_task(store: NoteStore):
    store.save(make_note("note-1", evidence=["tokenizer.py:88 drops tabs"]))
    store.save(make_note("note-2", open_issues=["unicode handling unverified"]))
    store.save(make_note("note-3", task="benchmark the cache"))
    assert [n.id for n in store.search("tokenizer")] == ["note-1"]
    assert [n.id for n in store.search("Unicode")] == ["note-2"]
    assert [n.id for n in store.search("cache benchmark")] == ["note-3"]
    assert store.search('tabs" (drops') == [store.find("note-1")]  # typed operators are plain words
    with pytest.raises(UsageError, match="at least one word"):
        store.search("*** ---")


def test_find_by_prefix(store: NoteStore):
    store.save(make_note("note-a1"))
    store.save(make_note("note-a2"))
    assert store.find("note-a1").id == "note-a1"
    with pytest.raises(UsageError, match="several notes"):
        store.find("note-a")
    with pytest.raises(UsageError, match="No note matches"):
        store.find("zzz")


def test_an_empty_state_dir_lists_nothing_and_creates_nothing(store: NoteStore, tmp_path: Path):
    assert store.notes() == []
    assert not (tmp_path / "notes").exists()


def test_another_table_group_lives_beside_the_notes(store: NoteStore, tmp_path: Path):
    store.save(make_note("note-1"))
    episodes = Schema("episodes", 1, ("CREATE TABLE IF NOT EXISTS episodes (id TEXT PRIMARY KEY)",))
    conn = connect(tmp_path / "notes" / "index.sqlite3", NOTES_SCHEMA, episodes)
    with conn:
        conn.execute("INSERT INTO episodes (id) VALUES ('e1')")
    versions = dict(conn.execute("SELECT name, version FROM schemas").fetchall())
    conn.close()
    assert versions == {"notes": 1, "episodes": 1}
    assert [n.id for n in store.notes()] == ["note-1"]


def test_fts_query_quotes_words():
    assert fts_query('parse "error" NEAR(x)') == '"parse" "error" "NEAR" "x"'
