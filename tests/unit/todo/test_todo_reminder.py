"""The reminder's counting rules, as a pure function of rounds (no model)."""

from __future__ import annotations

from agent_cli.core.messages import Block, Message
from agent_cli.core.tool_contract import ToolResult
from agent_cli.todo.reminder import TodoReminder
from agent_cli.todo.tracker import TodoTracker

OK = ToolResult("ok")
FAILED = ToolResult("refused", is_error=True)


def call(name: str) -> Block:
    return {"type": "tool_use", "id": f"id-{name}", "name": name, "input": {}}


def reminder(*statuses: str) -> TodoReminder:
    tracker = TodoTracker()
    tracker.replace([{"content": f"step {i}", "status": s} for i, s in enumerate(statuses)])
    return TodoReminder(tracker, rounds=3)


def request(guide: TodoReminder) -> list[Block]:
    """One request: a fresh tail message, as the loop appends one before each request."""
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "x"}]}]
    return guide.guidance(messages)


def test_reminds_once_after_three_rounds_then_counts_again():
    guide = reminder("in_progress", "pending")
    seen = []
    for _ in range(7):
        seen.append(len(request(guide)))
        guide.after_round([call("read_file")], [OK])
    assert seen == [0, 0, 0, 1, 0, 0, 1]


def test_successful_todo_write_resets_and_failed_one_does_not():
    guide = reminder("in_progress")
    guide.after_round([call("read_file")], [OK])
    guide.after_round([call("read_file"), call("todo_write")], [OK, OK])
    assert guide.count == 0
    guide.after_round([call("todo_write")], [FAILED])
    guide.after_round([call("read_file")], [OK])
    assert guide.count == 2


def test_several_calls_in_a_round_count_once():
    guide = reminder("pending")
    guide.after_round([call("read_file")] * 3, [OK] * 3)
    assert guide.count == 1
    guide.after_round([], [])
    assert guide.count == 1


def test_no_reminder_without_list_or_with_everything_completed():
    for guide in (reminder(), reminder("completed", "completed")):
        for _ in range(5):
            guide.after_round([call("read_file")], [OK])
        assert request(guide) == []


def test_reminder_text_and_repeat_for_a_rebuilt_request():
    guide = reminder("completed", "in_progress")
    for _ in range(3):
        guide.after_round([call("bash")], [OK])
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "x"}]}]
    (block,) = guide.guidance(messages)
    text = block["text"]
    assert text.startswith("<system-reminder>")
    assert text.endswith("</system-reminder>")
    assert "todo_write" in text
    assert "[x] step 0\n[>] step 1\n(1/2 completed)" in text
    # the same request rebuilt (retry after prompt-too-long recovery) keeps it; the next does not
    assert guide.guidance(messages) == [block]
    assert request(guide) == []
