"""Completion of slash commands in the chat input line, from the commands /help lists."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent_cli.ui import slash
from agent_cli.ui.completion import ChatCompleter


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
