"""The session's todo list as pure state: validate a complete list, then replace the old one.

A write either replaces the whole list or changes nothing: every item is validated on a new
tuple first, and only then assigned. The list is rendered for the model (`[x]`/`[>]`/`[ ]` and
`(k/n completed)`) with a JSON snapshot whose bytes depend only on the list.
"""

from __future__ import annotations

import ast
import json
import logging
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from agent_cli.core.payloads import TodoItem

log = logging.getLogger(__name__)

TOOL_NAME = "todo_write"
MAX_ITEMS = 50
# a todos string longer than this is refused before parsing: literal_eval's cost grows with it
MAX_STRING_CHARS = 200_000
STATUSES = ("pending", "in_progress", "completed")
MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}
_MAX_REPORTED = 10


class TodoError(ValueError):
    """A list that was refused; the message names the item and the rule, for the model."""


def parse_todos(raw: Any) -> Any:
    """A `todos` string is read as JSON, then as a Python literal; never evaluated as code."""
    if not isinstance(raw, str):
        return raw
    if len(raw) > MAX_STRING_CHARS:
        raise TodoError(f"todos is a string of {len(raw):,} characters; send an array")
    from agent_cli.core.text.lenient_values import json_in_string  # a call's string, when sent

    parsed = json_in_string(raw)  # JSON, inside a code fence too
    if parsed is not None:
        return parsed
    try:
        return ast.literal_eval(raw.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as e:
        raise TodoError(
            "todos is a string that is neither a JSON array nor a literal list "
            f"({type(e).__name__}); send todos as an array of objects"
        ) from None


def _label(index: int, item: Any) -> str:
    content = item.get("content") if isinstance(item, dict) else None
    if isinstance(content, str) and content.strip():
        short = " ".join(content.split())
        short = short if len(short) <= 40 else short[:39] + "…"
        return f"item {index + 1} ({json.dumps(short, ensure_ascii=False)})"
    return f"item {index + 1}"


def _rule(err: Any) -> str:
    field = ".".join(str(p) for p in err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        return f"unknown field '{field}' (allowed: content, status, active_form)"
    if kind == "missing":
        return f"missing field '{field}'"
    if field == "status":
        return f"status {err['input']!r} is not one of {', '.join(STATUSES)}"
    if kind == "model_type":
        return "must be an object with content and status"
    if kind == "empty_content":
        return str(err["msg"])
    return f"{field}: {err['msg']}" if field else str(err["msg"])


def _validate_items(items: list[Any]) -> tuple[list[TodoItem], list[str]]:
    valid: list[TodoItem] = []
    problems: list[str] = []
    for index, item in enumerate(items):
        try:
            valid.append(TodoItem.model_validate(item))
        except ValidationError as e:
            problems += [f"{_label(index, item)}: {_rule(err)}" for err in e.errors()]
    return valid, problems


def validate(raw: Any, max_items: int = MAX_ITEMS) -> tuple[TodoItem, ...]:
    """The complete new list, or TodoError naming every broken item and rule."""
    try:
        items = parse_todos(raw)
    except TodoError as e:
        raise _refusal([str(e)]) from None
    if not isinstance(items, list):
        raise _refusal([f"todos must be an array of items, got {type(items).__name__}"])
    problems: list[str] = []
    if len(items) > max_items:
        problems.append(f"the list has {len(items)} items; at most {max_items} are allowed")
    valid, item_problems = _validate_items(items)
    problems += item_problems
    running = [i for i, item in enumerate(items) if _status(item) == "in_progress"]
    if len(running) > 1:
        which = ", ".join(_label(i, items[i]) for i in running)
        problems.append(f"{which} are in_progress together; at most one item may be in_progress")
    if problems:
        raise _refusal(problems)
    return tuple(valid)


def _refusal(problems: list[str]) -> TodoError:
    shown = problems[:_MAX_REPORTED]
    if len(problems) > len(shown):
        shown.append(f"... and {len(problems) - len(shown)} more")
    lines = "\n".join(f"- {p}" for p in shown)
    return TodoError(
        f"todo_write refused; the todo list was not changed.\n{lines}\n"
        "Fix this and send the complete list again."
    )


def _status(item: Any) -> Any:
    return item.get("status") if isinstance(item, dict) else None


def render(items: Sequence[TodoItem]) -> str:
    """The list as the model and the user read it."""
    lines = [f"{MARKS[i.status]} {i.content}" for i in items] or ["(the todo list is empty)"]
    done = sum(1 for i in items if i.status == "completed")
    lines.append(f"({done}/{len(items)} completed)")
    return "\n".join(lines)


def snapshot(items: Sequence[TodoItem]) -> str:
    """Stable bytes: fixed key order, no whitespace variation, ASCII-escaped."""
    return json.dumps(
        {"todos": [i.as_dict() for i in items]}, ensure_ascii=True, separators=(",", ":")
    )


class TodoTracker:
    """One session's list. Never shared: build one per session."""

    def __init__(self, max_items: int = MAX_ITEMS) -> None:
        self.max_items = max_items
        self._items: tuple[TodoItem, ...] = ()

    @property
    def items(self) -> tuple[TodoItem, ...]:
        return self._items

    def replace(self, raw: Any) -> tuple[TodoItem, ...]:
        """Validate the complete list, then (only then) make it the current one."""
        new = validate(raw, self.max_items)
        self._items = new
        return new

    def restore(self, raw: Sequence[dict[str, Any]]) -> None:
        """From a transcript: a list that no longer validates is dropped, with a log line."""
        try:
            self._items = validate(list(raw), max(self.max_items, len(raw)))
        except TodoError as e:
            log.warning("the recorded todo list could not be restored: %s", e)

    def as_dicts(self) -> list[dict[str, Any]]:
        return [i.as_dict() for i in self._items]

    def unfinished(self) -> bool:
        return any(i.status != "completed" for i in self._items)

    def completed(self) -> int:
        return sum(1 for i in self._items if i.status == "completed")

    def result_text(self) -> str:
        """What todo_write returns: the rendered list, then its JSON snapshot."""
        return f"{render(self._items)}\n\n{snapshot(self._items)}"

    def view(self) -> str:
        """For re-showing after a summary compaction; empty when there is no list."""
        if not self._items:
            return ""
        return f"# Current todo list\n{render(self._items)}"
