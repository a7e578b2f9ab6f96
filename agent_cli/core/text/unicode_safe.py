"""Text that can always be written as UTF-8: a lone surrogate (a file name that is not UTF-8,
decoded with surrogateescape, or a `\\udcff` escape in a model's JSON) becomes its visible
escape, so a transcript, a request or stdout never fails to encode it."""

from __future__ import annotations

from typing import Any


def safe_text(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def safe_value(value: Any) -> Any:
    """Every string inside `value` (dict keys too) made safe; other values unchanged."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_value(k): safe_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [safe_value(v) for v in value]
    return value
