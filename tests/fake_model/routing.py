"""Predicates for ``FakeAnthropic.route``: pick a script by what a request contains."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]


def _text(value: Any) -> str:
    """All strings inside a value (content blocks included), joined by newlines."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_text(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value)
    return ""


def system_contains(needle: str) -> Predicate:
    """The system prompt (string or blocks) contains ``needle``."""
    return lambda body: needle in _text(body.get("system", ""))


def first_user_contains(needle: str) -> Predicate:
    """The first message's content contains ``needle``."""

    def check(body: dict[str, Any]) -> bool:
        messages = body.get("messages") or [{}]
        return needle in _text(messages[0].get("content", ""))

    return check


def has_tools(expected: bool = True) -> Predicate:
    """The request carries tools (or, with ``expected=False``, none: a helper call)."""
    return lambda body: bool(body.get("tools")) == expected
