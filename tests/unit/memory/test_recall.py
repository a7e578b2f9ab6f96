"""The recall tool through dispatch: episodes by file and query, and the notes seam."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext
from agent_cli.memory.episode import Episode
from agent_cli.memory.episode_store import EpisodeStore
from agent_cli.memory.recall import Recall
from agent_cli.tools.registry import ToolRegistry


def context(workspace: Path) -> ToolContext:
    return ToolContext(
        workspace=workspace, paths=Paths(workspace), session_id="s", settings=Settings()
    )


def seed(workspace: Path) -> None:
    store = EpisodeStore(Paths(workspace).index_db)
    for n, (file, title) in enumerate(
        [("src/x.py", "Parser crash"), ("src/y.py", "Parser speed"), ("docs/a.md", "Docs")]
    ):
        store.save(
            Episode(
                id=f"ep-{n}",
                session="s",
                workspace=str(workspace),
                title=title,
                core_problem=f"{title} problem",
                code_changes=[{"file": file, "summary": "changed"}],
            )
        )
    store.save(
        Episode(
            id="ep-far",
            session="s",
            workspace="/elsewhere",
            title="Parser crash",
            core_problem="p",
            code_changes=[{"file": "src/x.py", "summary": "c"}],
        )
    )


def recall(workspace: Path, tool: Recall | None = None, **args: object) -> str:
    registry = ToolRegistry([tool or Recall()])
    result = asyncio.run(registry.dispatch("recall", args, context(workspace)))
    assert not result.is_error, result.content
    return result.content


def test_file_and_query_hits_are_ranked_and_scoped(tmp_path: Path):
    seed(tmp_path)
    by_file = recall(tmp_path, file=str(tmp_path / "src" / "x.py"))
    assert by_file.startswith("Episodes (1):\n[episode ep-0] Parser crash")
    assert "ep-far" not in by_file  # another workspace
    both = recall(tmp_path, query="parser", file="src/y.py")
    assert both.index("[episode ep-1]") < both.index("[episode ep-0]")  # both criteria first
    assert "ep-2" not in both


def test_notes_are_searched_through_the_seam(tmp_path: Path):
    calls = []

    def notes(ctx: ToolContext, query: str | None, file: str | None, limit: int) -> list[str]:
        calls.append((query, file, limit))
        return ["[note n-1] The lexer handles tabs (confidence high)"]

    text = recall(tmp_path, Recall(notes=notes), query="lexer tabs")
    assert text == "Notes (1):\n[note n-1] The lexer handles tabs (confidence high)"
    assert calls == [("lexer tabs", None, 5)]


def test_real_notes_are_found_by_words_and_by_file(tmp_path: Path):
    from agent_cli.core.payloads import Note
    from agent_cli.memory.recall_notes import search_notes
    from agent_cli.subagent.store import NoteStore

    NoteStore(Paths(tmp_path)).save(
        Note(
            id="n-lexer",
            session_id="s",
            description="look at the lexer",
            task="How does the lexer treat tabs?",
            status="completed",
            conclusion="The lexer expands tabs to 4 spaces in src/lexer.py.",
            file_refs=["notes/n-lexer.log", "src/lexer.py:40"],
            confidence="high",
            log_path="notes/n-lexer.log",
        )
    )
    seed(tmp_path)
    tool = Recall(notes=search_notes)
    by_words = recall(tmp_path, tool, query="lexer tabs")
    assert "Notes (1):\n[note n-lexer] The lexer expands tabs" in by_words
    by_file = recall(tmp_path, tool, file="src/lexer.py")
    assert "[note n-lexer]" in by_file
    assert "Episodes" not in by_file
    assert "[note" not in recall(tmp_path, tool, file="src/x.py")
