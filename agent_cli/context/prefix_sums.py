"""A sum over a list asked again and again as the list grows at its end: the history's token
estimate and size are asked every round, and a round's history is the last one's plus a
message or two. Only the items past the prefix already summed are looked at; the prefix is
compared in one list comparison (C, each item by identity first), not walked in Python.

The items must not change in place (messages never do: stages build copies); an item equal to
the one it replaces counts the same, so equality is as good as identity here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PrefixSums(Generic[T]):
    """`sums(items)` is `sum(value(i) for i in items)`, kept for the newest list asked: a list
    that extends it, or is a prefix of it, is summed from what is kept."""

    def __init__(self, value: Callable[[T], int]) -> None:
        self._value = value
        self._held: list[T] = []
        self._sums: list[int] = [0]  # _sums[k]: the sum of the first k items held

    def __call__(self, items: list[T]) -> int:
        n, held = len(items), self._held
        common = min(n, len(held))
        if items[:common] != held[:common]:  # another list (a compaction, a subagent's)
            self._held, self._sums = [], [0]
            common = 0
        if n > common:  # it extends what is held
            sums, value = self._sums, self._value
            for item in items[common:]:
                sums.append(sums[-1] + value(item))
            self._held.extend(items[common:])
        return self._sums[n]
