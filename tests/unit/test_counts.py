"""Counts read as a person writes them (issue 37: `1 files changed`): one of a thing is
singular wherever a count is printed, on screen and in what the model reads."""

from __future__ import annotations

from agent_cli.core.events import ToolEnd
from agent_cli.core.text.counts import counted
from agent_cli.ui.render.render import files_changed, tool_end, tool_label


def test_counted_says_one_in_the_singular_and_the_rest_in_the_plural():
    assert [counted(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    assert counted(1, "match", "matches") == "1 match"
    assert counted(3, "match", "matches") == "3 matches"
    assert files_changed(1) == "1 file changed"


def test_a_preview_with_one_line_more_says_line():
    output = "\n".join(f"row {n}" for n in range(1, 6)) + "\n\nexit code: 0"
    end = ToolEnd(id="1", name="bash", is_error=False, summary="bash seq", output=output)
    assert tool_end(end, 80, color=False).split("\n")[-1] == "  │ +1 line"


def test_a_todo_list_of_one_is_one_item():
    label = tool_label("todo_write", {"todos": [{"content": "a", "status": "pending"}]})
    assert label == "todo_write (1 item)"
