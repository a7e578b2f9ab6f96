"""The episode store: revisions replace, lookups by file / open issues, the depends_on chain,
workspace scoping, FTS ranking, and living beside other tables in the same database."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from agent_cli.memory.episode import Episode
from agent_cli.memory.episode_store import EpisodeStore, fts_query

WS = "/work/repo"


def make(episode_id: str, **fields: object) -> Episode:
    data: dict[str, object] = {
        "id": episode_id,
        "session": "s1",
        "workspace": WS,
        "title": f"Episode {episode_id}",
        "core_problem": "A problem.",
    }
    data.update(fields)
    return Episode.model_validate(data)


@pytest.fixture
def store(tmp_path: Path) -> EpisodeStore:
    return EpisodeStore(tmp_path / "notes" / "index.sqlite3")


def ids(episodes: list[Episode]) -> list[str]:
    return [e.id for e in episodes]


def test_save_again_revises_instead_of_duplicating(store: EpisodeStore):
    store.save(make("ep-1", title="first title", code_changes=[{"file": "a.py", "summary": "s"}]))
    store.save(make("ep-1", title="second title", code_changes=[{"file": "b.py", "summary": "s"}]))
    (episode,) = store.recent()
    assert episode.title == "second title"
    assert ids(store.search("first")) == []
    assert ids(store.search("second")) == ["ep-1"]
    assert ids(store.by_file("a.py")) == []
    assert ids(store.by_file("b.py")) == ["ep-1"]


def test_lookup_by_file_matches_whole_path_segments(store: EpisodeStore):
    store.save(make("ep-x", code_changes=[{"file": "src/x.py", "summary": "s"}]))
    store.save(make("ep-ax", code_changes=[{"file": "src/ax.py", "summary": "s"}]))
    store.save(make("ep-u", code_changes=[{"file": "src/my_mod.py", "summary": "s"}]))
    assert ids(store.by_file("src/x.py")) == ["ep-x"]
    assert ids(store.by_file("./src/x.py")) == ["ep-x"]
    assert ids(store.by_file("x.py")) == ["ep-x"]  # not src/ax.py
    assert ids(store.by_file("/work/repo/src/x.py")) == ["ep-x"]
    assert ids(store.by_file("src/myXmod.py")) == []  # '_' is not a wildcard
    assert ids(store.by_file("y.py")) == []


def test_open_issue_lookups(store: EpisodeStore):
    store.save(make("ep-a", open_issues=["retry logic untested"], key_decisions=["use retry"]))
    store.save(make("ep-b", key_decisions=["add retry to the client"]))
    store.save(make("ep-c", open_issues=["docs missing"]))
    assert set(ids(store.with_open_issues())) == {"ep-a", "ep-c"}
    assert ids(store.with_open_issues("retry")) == ["ep-a"]  # decisions do not count here
    assert set(ids(store.search("retry"))) == {"ep-a", "ep-b"}


def test_depends_on_chain_is_transitive_and_cycle_safe(store: EpisodeStore):
    store.save(make("ep-1", depends_on=["ep-3"]))  # a cycle 1 -> 3 -> 2 -> 1
    store.save(make("ep-2", depends_on=["ep-1"]))
    store.save(make("ep-3", depends_on=["ep-2", "ep-missing"]))
    assert ids(store.chain("ep-3")) == ["ep-2", "ep-1"]
    assert store.dependents("ep-1") == ["ep-2"]
    assert store.existing(["ep-missing", "ep-2"]) == ["ep-2"]


def test_workspace_scoping_and_prefix_find(store: EpisodeStore):
    store.save(make("ep-here", title="parser"))
    store.save(make("ep-there", title="parser", workspace="/other"))
    assert ids(store.recent(WS)) == ["ep-here"]
    assert ids(store.search("parser", WS)) == ["ep-here"]
    assert set(ids(store.find("ep-"))) == {"ep-here", "ep-there"}
    assert ids(store.find("ep-he")) == ["ep-here"]
    assert ids(store.find("ep%")) == []  # LIKE wildcards are literal


def test_search_input_is_never_fts_syntax(store: EpisodeStore):
    store.save(make("ep-1", title="quote handling"))
    for text in ['"unbalanced', "a OR", "NEAR(", "title:x", "*", ")))", ""]:
        assert isinstance(store.search(text), list)
    assert fts_query('say "hi" OR bye') == '"say" OR "hi" OR "or" OR "bye"'


_WORDS_TEXT = (
    "parser lexer cache token config logging retry schema index router handler session "
    "buffer stream socket queue worker thread timeout encoder decoder template render"
)
WORDS = _WORDS_TEXT.split()


def test_ranking_with_fifty_episodes_puts_the_decision_keyword_first(store: EpisodeStore):
    rng = random.Random(8)
    target = "ep-25"
    for n in range(50):
        decisions = [" ".join(rng.sample(WORDS, 6)) for _ in range(3)]
        problem = " ".join(rng.sample(WORDS, 12))
        if n % 10 == 3:  # a few others mention the keyword in passing, in long text
            problem += " we considered memoization but did not pursue it " + " ".join(WORDS)
        if f"ep-{n}" == target:
            decisions[1] = "Use memoization of parsed templates keyed by file hash"
        store.save(
            make(
                f"ep-{n}",
                title=" ".join(rng.sample(WORDS, 3)),
                core_problem=problem,
                key_decisions=decisions,
            )
        )
    assert len(store.recent(limit=100)) == 50
    results = store.search("memoization")
    assert results[0].id == target
    assert len(results) == 6


def test_lives_beside_other_tables_in_the_same_database(store: EpisodeStore, tmp_path: Path):
    store.db_path.parent.mkdir(parents=True)
    other = sqlite3.connect(store.db_path)  # e.g. the notes index, written meanwhile
    other.execute("CREATE TABLE tickets (id TEXT PRIMARY KEY, body TEXT)")
    other.execute("INSERT INTO tickets VALUES ('n1', 'a note')")
    other.commit()
    store.save(make("ep-1"))
    assert other.execute("SELECT body FROM tickets").fetchone() == ("a note",)
    assert other.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    other.execute("BEGIN")  # a reader's open transaction does not block a save (WAL)
    other.execute("SELECT count(*) FROM tickets").fetchone()
    store.save(make("ep-2"))
    other.rollback()
    other.close()
    assert ids(EpisodeStore(store.db_path).recent()) == ["ep-2", "ep-1"]
