"""The compaction pipeline's thresholds (SPEC §8), a section of the one Settings model.

`compact_at` says when the summary (the compaction people mean) starts: a fraction of the
model's window (0.5, "50%") or a token count (400000), one for every model or one per model id
with "*" for the rest. The cheaper steps before it scale with it, so they still come first.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from agent_cli.core.settings.strict import StrictSettings

ANY_MODEL = "*"
MIN_COMPACT_TOKENS = 1_000
CompactAt = float | int


def compact_value(raw: Any) -> CompactAt:
    """A fraction in (0, 1] or a whole token count of at least 1,000; "50%" is 0.5."""
    value = raw
    if isinstance(raw, str):
        text = raw.strip().replace(",", "").replace("_", "")
        try:
            value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            value = None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{raw!r} is neither a fraction of the window nor a token count")
    if 0 < value <= 1:
        return float(value)
    if value >= MIN_COMPACT_TOKENS and float(value).is_integer():
        return int(value)
    raise ValueError(
        f"{raw!r}: say a fraction of the window (0 < x <= 1, e.g. 0.5) or a whole number of "
        f"tokens (at least {MIN_COMPACT_TOKENS:,})"
    )


class ContextSettings(StrictSettings):
    """Thresholds of the compaction pipeline (SPEC §8). Token values left unset are derived
    from the model's context window."""

    result_budget_chars: int = Field(
        default=100_000, ge=1_000, description="Newest batch of tool results, in characters."
    )
    snip_trigger: int = Field(default=50, ge=4, description="Message count that triggers a snip.")
    snip_target: int = Field(default=30, ge=2, description="Message count a snip cuts down to.")
    snip_limit: int | None = Field(
        default=None,
        ge=5,
        description="Message count at which a due snip happens even while nothing else rewrites "
        "the cached prefix (unset: twice snip_trigger).",
    )
    micro_threshold_tokens: int | None = Field(
        default=None, ge=1_000, description="Estimated tokens that start micro-compaction."
    )
    micro_target_tokens: int | None = Field(
        default=None, ge=500, description="Micro-compaction works down to this."
    )
    summary_threshold_tokens: int | None = Field(
        default=None, ge=1_000, description="Estimated tokens still over which a summary is made."
    )
    compact_at: CompactAt | dict[str, CompactAt] | None = Field(
        default=None,
        description="When compaction (the summary) starts: a fraction of the window (0.5) or "
        'tokens (400000), or one per model id ("*": the rest). Unset: 80% of the window.',
    )
    keep_recent_results: int = Field(
        default=3, ge=0, le=50, description="Newest tool results micro-compaction never touches."
    )
    reactive_keep_messages: int = Field(
        default=5, ge=1, le=50, description="Messages kept verbatim on prompt-too-long."
    )
    max_summary_failures: int = Field(
        default=3, ge=1, le=10, description="Failed summaries in a row before auto-summary stops."
    )

    @field_validator("compact_at", mode="before")
    @classmethod
    def _compact_at(cls, raw: Any) -> Any:
        if raw is None:
            return None
        if isinstance(raw, dict):
            return {str(model): compact_value(value) for model, value in raw.items()}
        return compact_value(raw)

    @model_validator(mode="after")
    def _hysteresis(self) -> ContextSettings:
        if self.snip_trigger <= self.snip_target:
            raise ValueError("snip_trigger must be greater than snip_target")
        if self.snip_limit is not None and self.snip_limit <= self.snip_trigger:
            raise ValueError("snip_limit must be greater than snip_trigger")
        if self.compact_at is not None and self.summary_threshold_tokens is not None:
            raise ValueError("set compact_at or summary_threshold_tokens, not both")
        return self

    def compact_for(self, model: str) -> CompactAt | None:
        """`compact_at` as it applies to `model` (None: the default)."""
        value = self.compact_at
        if isinstance(value, dict):
            return value.get(model, value.get(ANY_MODEL))
        return value

    @property
    def snip_ceiling(self) -> int:
        """`snip_limit`, or twice `snip_trigger` when unset."""
        return self.snip_limit if self.snip_limit is not None else 2 * self.snip_trigger


# How long the prompt cache keeps what a request writes: `5m` (the API's default) or `1h`, for the
# main agent and subagents separately. A 1h write costs 2x base input instead of 1.25x, and pays
# off when the gap between an agent's requests can pass five minutes.
CacheTtl = Literal["5m", "1h"]


class CacheTtlSettings(StrictSettings):
    """`{"main": "5m", "subagents": "1h"}`; one string ("1h") sets both."""

    main: CacheTtl = Field(default="5m", description="The main agent's prompt-cache TTL.")
    subagents: CacheTtl = Field(default="5m", description="Subagents' prompt-cache TTL.")

    @model_validator(mode="before")
    @classmethod
    def _one_for_both(cls, raw: Any) -> Any:
        if isinstance(raw, str):
            return {"main": raw, "subagents": raw}
        return raw

    def for_caller(self, caller: str) -> CacheTtl:
        return self.subagents if caller.startswith("subagent") else self.main
