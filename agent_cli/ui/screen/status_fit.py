"""The status bar on a narrow screen: whole parts are left out, least needed first, so no part is
ever cut in the middle (`$0.` for `$0.037`) and what the user must act on stays visible."""

from __future__ import annotations

SEPARATOR = "  ·  "


def fit_parts(parts: list[tuple[str, int]], width: int) -> str:
    """`parts` in display order, each with its priority (higher is kept longer). Drops the
    lowest-priority parts until the rest fit in `width` columns; the last one left is kept even
    when it alone is too wide (the terminal cuts it)."""
    kept = [(text, rank, i) for i, (text, rank) in enumerate(parts) if text]
    while len(kept) > 1 and len(SEPARATOR.join(t for t, _, _ in kept)) > width:
        lowest = min(kept, key=lambda part: (part[1], -part[2]))
        kept.remove(lowest)
    return SEPARATOR.join(t for t, _, _ in kept)
