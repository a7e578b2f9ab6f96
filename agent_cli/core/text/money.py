"""Money as every line of the agent says it: `$0.012`, `$0.012 + n/a` (a model without a price
was used too), `n/a` (no price known). In core so a status the core writes (a goal's line)
says it as the chat's panel and status bar do."""

from __future__ import annotations


def cost(usd: float | None, unpriced: bool = False) -> str:
    """The priced part, then `+ n/a` for calls of a model without a price."""
    if usd is None or (unpriced and not usd):
        return "n/a"
    return f"${usd:.3f}" + (" + n/a" if unpriced else "")
