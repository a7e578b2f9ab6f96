"""Project files in the chat screen: Tab completes commands with their argument hint and
description; the panel shows a subagent type's colour and name."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent_cli.ext.project_files import EXTENSION
from agent_cli.ext.project_files.chat import completion_items
from agent_cli.ui.input.completion import ChatCompleter
from agent_cli.ui.slash import commands as slash


def test_project_commands_complete_with_hint_and_description(tmp_path: Path):
    folder = tmp_path / ".claude" / "commands" / "git"
    folder.mkdir(parents=True)
    (folder / "commit.md").write_text(
        "---\ndescription: Commit staged work\nargument-hint: [message]\n---\nCommit $1\n"
    )
    (tmp_path / ".claude" / "commands" / "review.md").write_text("Review $ARGUMENTS\n")

    def items() -> list[str | tuple[str, str]]:
        extension = [(c.name, c.about) for c in EXTENSION.slash_commands]  # as the chat lists
        return [*slash.names(), *extension, *completion_items(tmp_path)]

    completer = ChatCompleter(tmp_path, items)
    found = list(completer.get_completions(Document("/git"), CompleteEvent()))
    assert [(c.text, c.display_meta_text) for c in found] == [
        ("/git:commit", "[message] — Commit staged work")
    ]
    names = [c.text for c in completer.get_completions(Document("/"), CompleteEvent())]
    assert {"/help", "/commands", "/agents", "/skills", "/git:commit", "/review"} <= set(names)


def test_the_panel_shows_a_subagent_types_colour_and_name():
    from agent_cli.core.events import NoteAdded
    from agent_cli.ui.screen.side_panel import PanelState, render_panel
    from tests.e2e.helpers import make_note

    state = PanelState()
    note = make_note(id="n-1", conclusion="Found it.", agent_type="code-reviewer", color="green")
    state.apply(NoteAdded(note=note))
    assert "\x1b[32m● \x1b[0m" in render_panel(state, 140, True)  # green
    assert "high · completed · code-reviewer" in render_panel(state, 140, False)
