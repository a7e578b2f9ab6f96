"""Token estimates, calibrated against the usage the API reported for the previous request.

The raw estimate counts ASCII characters of a message's JSON at 4 per token and every other
character (CJK, emoji) as a whole token, then adds a few tokens per message for framing. It is only
a guess; the API's own count of the previous request turns it into a ratio, so text the heuristic
misjudges (dense tool JSON, CJK) is corrected after one request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_cli.context.prefix_sums import PrefixSums
from agent_cli.core.errors import ConfigError
from agent_cli.core.history import SameItems
from agent_cli.core.image_rules import without_images
from agent_cli.core.messages import Message
from agent_cli.core.settings.schema import Settings
from agent_cli.model.usage import Usage

if TYPE_CHECKING:
    from agent_cli.context.ports import StageContext

PER_MESSAGE = 4
MIN_RATIO, MAX_RATIO = 0.25, 4.0


def text_tokens(text: str) -> int:
    ascii_chars = len(text.encode("ascii", "ignore"))
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def value_tokens(value: Any) -> int:
    """An image counts as the model sees it (pixels), not as the characters of its data."""
    value, images = without_images(value)
    return images + text_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


# Messages are never changed in place (stages build copies), so an estimate can be kept per
# message object: every request re-estimates the whole history, which was O(n) JSON dumps a round.
_MEMO: dict[int, tuple[Message, int]] = {}
_MEMO_LIMIT = 512


def message_tokens(message: Message) -> int:
    hit = _MEMO.get(id(message))
    if hit is not None and hit[0] is message:
        return hit[1]
    tokens = value_tokens(message.get("content")) + PER_MESSAGE
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[id(message)] = (message, tokens)  # holding the message keeps its id from being reused
    return tokens


def raw_tokens(messages: list[Message]) -> int:
    return sum(message_tokens(m) for m in messages)


def held_tokens() -> SameItems[int]:
    """`value_tokens` of a list whose items are never changed in place (system blocks, tool
    schemas), counted again only when it holds other objects: the request's overhead is asked
    every round, and was two JSON dumps of ~20 KB a round."""
    return SameItems(value_tokens)


@dataclass
class TokenCounter:
    """Estimates the tokens a request occupies: messages plus `overhead` (system and tools, in raw
    tokens), times a ratio learned from the API's count of the previous request."""

    overhead: int = 0
    ratio: float = 1.0
    learned: bool = False  # the ratio comes from an API count (else the raw heuristic stands)
    _calibrated_on: Usage | None = field(default=None, repr=False)
    # the history is estimated several times a round, each time the last one plus a message or
    # two: summed from what is kept, not walked whole (a round was O(history) lookups, thrice)
    _sums: PrefixSums[Message] = field(
        default_factory=lambda: PrefixSums(message_tokens), repr=False, compare=False
    )

    def estimate(self, messages: list[Message]) -> int:
        return round((self._sums(messages) + self.overhead) * self.ratio)

    def scaled(self, raw: int) -> int:
        return round(raw * self.ratio)

    def calibrate(self, ctx: StageContext, messages: list[Message]) -> None:
        """Learn from the previous request's usage, once per usage. Call before rewriting
        `messages`: its first `last_request_messages` entries are what that request sent."""
        usage, sent = ctx.last_usage, ctx.last_request_messages
        if usage is None or usage is self._calibrated_on:
            return
        self._calibrated_on = usage
        if usage.context_tokens <= 0 or not 0 < sent <= len(messages):
            return
        self.ratio = calibration_ratio(usage.context_tokens, self._sums(messages[:sent]), self)
        self.learned = True

    def forget(self, usage: Usage | None) -> None:
        """The history was rewritten after `usage` was reported: its prefix no longer matches."""
        self._calibrated_on = usage


def calibration_ratio(actual: int, raw_messages: int, counter: TokenCounter) -> float:
    raw = raw_messages + counter.overhead
    return min(MAX_RATIO, max(MIN_RATIO, actual / raw)) if raw > 0 else counter.ratio


@dataclass(frozen=True)
class Thresholds:
    """The pipeline's limits, resolved for one model (token values derived from its window)."""

    result_budget_chars: int
    snip_trigger: int
    snip_target: int
    snip_limit: int
    micro_threshold: int
    micro_target: int
    summary_threshold: int
    keep_recent_results: int
    reactive_keep: int
    max_summary_failures: int
    preview_chars: int


# fractions of the context window used when a token threshold is not set
MICRO_THRESHOLD_SHARE = 0.62
MICRO_TARGET_SHARE = 0.15
SUMMARY_THRESHOLD_SHARE = 0.80


def compact_tokens(settings: Settings, model: str | None = None) -> int | None:
    """`context.compact_at` for the model in tokens; None when unset. ConfigError when it is
    past the model's window (compaction would never start)."""
    model = model or settings.model
    value = settings.context.compact_for(model)
    if value is None:
        return None
    window = settings.context_window(model)
    if isinstance(value, float):
        return max(1, int(window * value))
    if value > window:
        raise ConfigError(
            f"bad setting 'context.compact_at': {value:,} tokens is past the window of {model} "
            f"({window:,}); say a fraction (0.5) or fewer tokens"
        )
    return value


def resolve_thresholds(settings: Settings, model: str | None = None) -> Thresholds:
    """Fill the unset token thresholds from the model's window; refuse an inverted pair."""
    ctx = settings.context
    window = settings.context_window(model)
    compact = compact_tokens(settings, model)
    summary_set = compact or ctx.summary_threshold_tokens
    # the steps before the summary keep their place below it when compact_at moves it
    share = compact / (window * SUMMARY_THRESHOLD_SHARE) if compact else 1.0
    micro = ctx.micro_threshold_tokens or int(window * MICRO_THRESHOLD_SHARE * share)
    target = ctx.micro_target_tokens or min(int(window * MICRO_TARGET_SHARE), micro // 2)
    summary = summary_set or max(int(window * SUMMARY_THRESHOLD_SHARE), micro)
    if target >= micro:
        raise ConfigError(
            f"bad setting 'context.micro_target_tokens': {target} must be below the "
            f"micro-compaction threshold ({micro})"
        )
    if summary < micro:
        key = "compact_at" if compact else "summary_threshold_tokens"
        raise ConfigError(
            f"bad setting 'context.{key}': {summary} must not be below the "
            f"micro-compaction threshold ({micro})"
        )
    return Thresholds(
        result_budget_chars=ctx.result_budget_chars,
        snip_trigger=ctx.snip_trigger,
        snip_target=ctx.snip_target,
        snip_limit=ctx.snip_ceiling,
        micro_threshold=micro,
        micro_target=target,
        summary_threshold=summary,
        keep_recent_results=ctx.keep_recent_results,
        reactive_keep=ctx.reactive_keep_messages,
        max_summary_failures=ctx.max_summary_failures,
        preview_chars=settings.tool_preview_chars,
    )
