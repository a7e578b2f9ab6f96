"""Step 3, micro-compaction: when the estimated context passes its threshold, tool results the
model has already seen (all but the newest few) become `[Earlier tool result saved at <path>]`,
oldest first, down to a lower target. Step 3b: still over the threshold, results from the largest
down become a short preview plus path, unseen ones included (a preview still shows their start).

Results hold most of the bytes and can be fetched again; conversation text cannot, so it is left
alone here. The gap between threshold and target keeps these rewrites, which change the cached
prefix, rare.
"""

from __future__ import annotations

from collections.abc import Callable

from agent_cli.context.ports import Compacted, StageContext
from agent_cli.context.results import (
    ResultRef,
    find_results,
    is_placeholder,
    placeholder,
    preview,
    replace_results,
)
from agent_cli.context.state import ContextState
from agent_cli.context.tokens import text_tokens
from agent_cli.core.messages import Message

Cost = Callable[[str], int]
PLACEHOLDER_TOKENS = 40
PREVIEW_NOTE_TOKENS = 60


def plan_micro(results: list[ResultRef], excess: int, keep: int, cost: Cost) -> list[ResultRef]:
    """Seen results to replace by a placeholder, oldest first, until `excess` tokens are freed;
    the newest `keep` results are never touched (the one the model has not seen yet counts among
    them: it is the newest), nor any unseen one."""
    whole = [r for r in results if not is_placeholder(r.text)]
    candidates = [r for r in whole[: max(0, len(whole) - keep)] if r.seen]
    return _take(candidates, excess, lambda r: cost(r.text) - PLACEHOLDER_TOKENS)


def plan_fit(
    results: list[ResultRef], excess: int, preview_chars: int, cost: Cost
) -> list[ResultRef]:
    """Step 3b: results to shorten to a preview, largest first, until `excess` tokens are freed."""
    longer = [r for r in results if len(r.text) > preview_chars * 2 and not is_placeholder(r.text)]
    ordered = sorted(longer, key=lambda r: len(r.text), reverse=True)
    kept_cost = cost("x" * preview_chars) + PREVIEW_NOTE_TOKENS
    return _take(ordered, excess, lambda r: cost(r.text) - kept_cost)


def _take(
    candidates: list[ResultRef], excess: int, gain: Callable[[ResultRef], int]
) -> list[ResultRef]:
    chosen: list[ResultRef] = []
    freed = 0
    for ref in candidates:
        if freed >= excess:
            break
        if gain(ref) > 0:
            chosen.append(ref)
            freed += gain(ref)
    return chosen


class MicroCompact:
    name = "micro"

    def __init__(self, state: ContextState) -> None:
        self.state = state

    async def apply(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        state, limits = self.state, self.state.thresholds
        state.counter.calibrate(ctx, messages)
        before = state.counter.estimate(messages)
        # once the cached prefix is lost anyway, compacting to the target now saves a later break
        start = limits.micro_target if state.prefix_broken else limits.micro_threshold
        if before <= start:
            return None
        out = shrink(messages, state, before, placeholders=True)
        after = state.counter.estimate(out)
        if after > limits.micro_threshold:
            out = shrink(out, state, after, placeholders=False)
            after = state.counter.estimate(out)
        if out is messages:
            return None
        state.prefix_broken = True
        return Compacted(out, self.name, tokens_before=before, tokens_after=after)


def shrink(
    messages: list[Message], state: ContextState, tokens: int, placeholders: bool
) -> list[Message]:
    """Step 3 (placeholders) or 3b (previews) down to the micro target; `messages` itself when
    nothing can be done."""
    limits = state.thresholds
    results = find_results(messages)
    excess = tokens - limits.micro_target

    def cost(text: str) -> int:
        return state.counter.scaled(text_tokens(text))

    if placeholders:
        plan = plan_micro(results, excess, limits.keep_recent_results, cost)
    else:
        plan = plan_fit(results, excess, limits.preview_chars // 2, cost)
    if not plan:
        return messages
    new_text: dict[tuple[int, int], str] = {}
    for ref in plan:
        path = state.save(ref, messages)
        short = preview(ref.text, path, limits.preview_chars // 2)
        new_text[(ref.message, ref.block)] = placeholder(path) if placeholders else short
    return replace_results(messages, new_text)
