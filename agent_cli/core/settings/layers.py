"""Which settings file a bad setting is in: the user's and the workspace's files are validated
merged, and the error's path names a key that one of them holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Layer = tuple[str, dict[str, Any]]  # (the file, what it holds)


def holder(loc: Sequence[int | str], layers: Sequence[Layer]) -> str:
    """The file holding the longest part of `loc`, the later file on a tie; with no part held
    anywhere (a check across keys), the last file that holds anything."""
    best, depth = "", 0
    for name, data in layers:
        held = _depth(data, loc)
        if held and held >= depth:
            best, depth = name, held
    if best:
        return best
    filled = [name for name, data in layers if data]
    return filled[-1] if filled else layers[-1][0]


def _depth(data: Any, loc: Sequence[int | str]) -> int:
    held = 0
    for part in loc:
        if not _has(data, part):
            break
        data, held = data[part], held + 1
    return held


def _has(data: Any, part: int | str) -> bool:
    if isinstance(data, dict):
        return part in data
    return isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
