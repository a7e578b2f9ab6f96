"""Row arithmetic of the chat screen's bottom region (standard library only: the screen is drawn
before anything heavy is imported)."""

from __future__ import annotations


def side_width(columns: int) -> int:
    """The panel's width beside the reply (from 100 columns up)."""
    return 40 if columns >= 140 else 34


def count_rows(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def tail_rows(text: str, rows: int) -> str:
    """The last `rows` lines of `text`."""
    if rows < 1:
        return ""
    return "\n".join(text.split("\n")[-rows:]) if text else ""
