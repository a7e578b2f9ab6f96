"""Extended thinking and images: sections of the one Settings model, kept apart from schema.py."""

from __future__ import annotations

from pydantic import Field

from agent_cli.core.settings.strict import StrictSettings

MIN_THINKING_BUDGET = 1_024  # the API's floor for budget_tokens


class ThinkingSettings(StrictSettings):
    """Extended thinking (off unless a budget is set). The budget is part of max_tokens, so it
    must stay below it."""

    budget_tokens: int | None = Field(
        default=None,
        ge=MIN_THINKING_BUDGET,
        le=128_000,
        description="Tokens a reply may spend thinking (at least 1,024); unset: thinking is off.",
    )
    interleaved: bool = Field(
        default=True, description="Think between tool calls too (the interleaved-thinking beta)."
    )


def budget_problem(budget: int | None, max_tokens: int) -> str | None:
    """Why `budget` cannot be used with `max_tokens`, or None when it can."""
    if budget is None:
        return None
    if budget < MIN_THINKING_BUDGET:
        return f"the thinking budget must be at least {MIN_THINKING_BUDGET:,} tokens"
    if budget >= max_tokens:
        return f"the thinking budget must be below max_tokens ({max_tokens:,})"
    return None
