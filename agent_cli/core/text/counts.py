"""A count and its noun as a person writes them: `1 file`, `2 files`, `0 files`."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, the noun in the plural unless `n` is one (`plural` when not noun + s)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
