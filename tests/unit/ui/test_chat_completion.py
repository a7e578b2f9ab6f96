"""Completion of slash commands in the chat input line, from the commands /help lists."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent_cli.ui.input.completion import ChatCompleter
from agent_cli.ui.input.file_match import fuzzy
from agent_cli.ui.slash import commands as slash


def completions(text: str, workspace: Path) -> list[str]:
    completer = ChatCompleter(workspace, slash.names)
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]


def test_slash_prefix_completes_the_memory_commands(tmp_path: Path):
    assert completions("/rem", tmp_path) == ["/remember"]
    assert completions("/me", tmp_path) == ["/memory"]
    assert completions("/remember now", tmp_path) == []  # past the command: no completion


def test_slash_entries_carry_their_description(tmp_path: Path):
    completer = ChatCompleter(tmp_path, slash.names, describe=slash.describe)
    (only,) = completer.get_completions(Document("/comp"), CompleteEvent())
    assert only.text == "/compact"
    assert only.display_meta_text == "compact the conversation now, keeping `focus` in view"


def test_at_path_completes_fuzzily_across_the_tree_and_respects_gitignore(tmp_path: Path):
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    for name in (
        "src/agent/runtime_main.py",
        "src/agent/util.py",
        "docs/run.md",
        "build/runtime_main.py",
        "debug.log",
        "README.md",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    found = completions("look at @rtmain", tmp_path)
    assert found == ["src/agent/runtime_main.py"]  # build/ and *.log are ignored
    assert completions("@util", tmp_path) == ["src/agent/util.py"]  # no folder typed
    assert completions("@run", tmp_path)[0] == "docs/run.md"  # in the name, tightest first
    assert completions("@debug", tmp_path) == []


def test_fuzzy_ranks_a_match_in_the_file_name_first():
    paths = ["runtime/a/main.py", "src/rmain.py", "docs/readme.md"]
    assert fuzzy("rmain", paths) == ["src/rmain.py", "runtime/a/main.py"]
    assert fuzzy("", paths) == paths
