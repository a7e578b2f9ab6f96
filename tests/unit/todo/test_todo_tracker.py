"""The todo list as pure state: validation rules, atomic replacement, strings, stable bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_cli.todo.tracker import TodoError, TodoTracker, render, snapshot

PLAN: list[dict[str, Any]] = [
    {"content": "Read the code", "status": "completed"},
    {"content": "Write a failing test", "status": "in_progress", "active_form": "Writing a test"},
    {"content": "Fix the bug", "status": "pending"},
]


def tracker_with_plan() -> TodoTracker:
    tracker = TodoTracker()
    tracker.replace(PLAN)
    return tracker


def refuse(tracker: TodoTracker, raw: Any) -> str:
    """Asserts the write is refused and the old list is the very same object; returns the error."""
    before = tracker.items
    before_dump = tracker.as_dicts()
    with pytest.raises(TodoError) as info:
        tracker.replace(raw)
    assert tracker.items is before
    assert tracker.as_dicts() == before_dump
    message = str(info.value)
    assert message.startswith("todo_write refused; the todo list was not changed.")
    return message


def test_valid_list_replaces_the_whole_list():
    tracker = tracker_with_plan()
    tracker.replace([{"content": "  Only step  ", "status": "pending"}])
    assert tracker.as_dicts() == [{"content": "Only step", "status": "pending"}]


def test_result_is_rendered_list_then_snapshot():
    text = tracker_with_plan().result_text()
    assert text == (
        "[x] Read the code\n"
        "[>] Write a failing test\n"
        "[ ] Fix the bug\n"
        "(1/3 completed)\n"
        "\n"
        '{"todos":[{"content":"Read the code","status":"completed"},'
        '{"content":"Write a failing test","status":"in_progress",'
        '"active_form":"Writing a test"},'
        '{"content":"Fix the bug","status":"pending"}]}'
    )


def test_claude_codes_camel_case_active_form_is_read_as_active_form():
    """A model that learned Claude Code's todo tool writes `activeForm`: the list is taken (it
    was refused as an unknown field) and kept in one spelling; both at once are refused."""
    tracker = tracker_with_plan()
    camel = {"content": "Run the tests", "status": "in_progress", "activeForm": "Running"}
    tracker.replace([camel])
    assert tracker.as_dicts() == [
        {"content": "Run the tests", "status": "in_progress", "active_form": "Running"}
    ]
    both = {"content": "A", "status": "pending", "active_form": "x", "activeForm": "y"}
    assert "unknown field 'activeForm'" in refuse(tracker, [both])


def test_empty_list_is_valid_and_clears_the_plan():
    tracker = tracker_with_plan()
    tracker.replace([])
    assert tracker.items == ()
    assert render(tracker.items) == "(the todo list is empty)\n(0/0 completed)"
    assert not tracker.unfinished()
    assert tracker.view() == ""


@pytest.mark.parametrize("content", ["", "   ", "\n\t "])
def test_blank_content_is_refused(content: str):
    message = refuse(tracker_with_plan(), [*PLAN[:1], {"content": content, "status": "pending"}])
    assert "- item 2: content is empty after trimming" in message


def test_unknown_status_is_refused():
    message = refuse(tracker_with_plan(), [{"content": "Ship it", "status": "working"}])
    assert (
        "- item 1 (\"Ship it\"): status 'working' is not one of pending, in_progress, completed"
        in message
    )


def test_two_in_progress_are_refused():
    items = [
        {"content": "A", "status": "in_progress"},
        {"content": "B", "status": "pending"},
        {"content": "C", "status": "in_progress"},
    ]
    message = refuse(tracker_with_plan(), items)
    assert 'item 1 ("A"), item 3 ("C") are in_progress together' in message
    assert "at most one item may be in_progress" in message


def test_at_most_50_items():
    tracker = TodoTracker()
    fifty = [{"content": f"step {i}", "status": "pending"} for i in range(50)]
    tracker.replace(fifty)
    assert len(tracker.items) == 50
    message = refuse(tracker, [*fifty, {"content": "one more", "status": "pending"}])
    assert "the list has 51 items; at most 50 are allowed" in message


def test_max_items_follows_the_setting():
    tracker = TodoTracker(max_items=2)
    three = [{"content": c, "status": "pending"} for c in "abc"]
    assert "at most 2 are allowed" in refuse(tracker, three)


@pytest.mark.parametrize(
    ("item", "rule"),
    [
        ({"content": "A", "status": "pending", "priority": "high"}, "unknown field 'priority'"),
        ({"content": "A"}, "missing field 'status'"),
        ({"status": "pending"}, "missing field 'content'"),
        ({"content": 7, "status": "pending"}, "content: Input should be a valid string"),
        ("just a string", "must be an object with content and status"),
    ],
)
def test_item_shape_rules(item: Any, rule: str):
    message = refuse(tracker_with_plan(), [PLAN[0], item])
    assert "item 2" in message
    assert rule in message


def test_every_broken_item_is_named():
    items = [
        {"content": "ok", "status": "pending"},
        {"content": " ", "status": "pending"},
        {"content": "bad status", "status": "done"},
    ]
    message = refuse(tracker_with_plan(), items)
    assert "item 2: content is empty" in message
    assert "item 3 (\"bad status\"): status 'done'" in message
    assert "item 1" not in message


def test_not_a_list_is_refused():
    assert "todos must be an array of items, got dict" in refuse(TodoTracker(), {"a": 1})
    assert "got NoneType" in refuse(TodoTracker(), None)


def test_json_string_is_parsed():
    tracker = TodoTracker()
    tracker.replace(json.dumps(PLAN))
    assert tracker.as_dicts() == tracker_with_plan().as_dicts()


def test_python_literal_string_is_parsed():
    tracker = TodoTracker()
    tracker.replace("[{'content': 'Fix it', 'status': 'in_progress', 'active_form': None}]")
    assert tracker.as_dicts() == [{"content": "Fix it", "status": "in_progress"}]


def test_code_in_a_string_is_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    bait = "__import__('os').system('touch PWNED')"
    message = refuse(tracker_with_plan(), bait)
    assert "neither a JSON array nor a literal list" in message
    assert not (tmp_path / "PWNED").exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["not a list at all", "{'a': 1}", "[" * 100_000, "x" * 300_000])
def test_bad_strings_are_refused(text: str):
    refuse(tracker_with_plan(), text)


def test_invalid_string_list_is_validated_like_a_list():
    message = refuse(tracker_with_plan(), '[{"content": "A", "status": "nope"}]')
    assert "status 'nope'" in message


def test_equal_lists_give_equal_bytes_including_non_ascii():
    first, second = TodoTracker(), TodoTracker()
    items = [{"content": "编写测试 ✓ café", "status": "in_progress", "active_form": "正在编写"}]
    first.replace(items)
    second.replace(json.dumps(items, ensure_ascii=False))  # arrives as a string
    assert first.result_text().encode() == second.result_text().encode()
    snap = snapshot(first.items)
    assert snap.isascii()
    assert "\\u7f16\\u5199\\u6d4b\\u8bd5" in snap
    assert json.loads(snap) == {"todos": items}
    # the key order is fixed whatever order the model sent the keys in
    shuffled = [{"active_form": "正在编写", "status": "in_progress", "content": "编写测试 ✓ café"}]
    second.replace(shuffled)
    assert snapshot(second.items) == snap


def test_two_trackers_are_independent():
    first, second = TodoTracker(), TodoTracker()
    first.replace(PLAN)
    assert second.items == ()
    second.replace([{"content": "other", "status": "pending"}])
    assert [i.content for i in first.items] == [p["content"] for p in PLAN]


def test_restore_keeps_a_recorded_list_and_drops_a_broken_one():
    tracker = TodoTracker()
    tracker.restore(tracker_with_plan().as_dicts())
    assert tracker.as_dicts() == tracker_with_plan().as_dicts()
    broken = TodoTracker()
    broken.restore([{"content": "", "status": "pending"}])
    assert broken.items == ()


def test_view_shows_the_list_for_after_compaction():
    assert tracker_with_plan().view() == "# Current todo list\n" + render(tracker_with_plan().items)
