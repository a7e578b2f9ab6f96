"""Step 1, result budget: when the newest batch of tool results (not yet seen by the model) is
larger than its budget, the largest results are saved whole and replaced by a preview plus the
saved path. Only the unsent end of the history changes, so the cached prefix survives."""

from __future__ import annotations

from agent_cli.context.ports import Compacted, StageContext
from agent_cli.context.results import (
    PREVIEW_NOTE,
    ResultRef,
    find_results,
    last_assistant,
    preview,
    replace_results,
)
from agent_cli.context.state import ContextState
from agent_cli.core.messages import Message

# what a preview adds beside the kept characters: the note naming the path
NOTE_CHARS = len(PREVIEW_NOTE) + 200


def newest_batch(messages: list[Message]) -> list[ResultRef]:
    """The results after the last reply: only the end of the history is read, every round."""
    return find_results(messages, start=last_assistant(messages) + 1)


def plan_budget(batch: list[ResultRef], budget_chars: int, preview_chars: int) -> list[ResultRef]:
    """The results to preview, largest first, until the batch fits its budget."""
    total = sum(len(r.text) for r in batch)
    chosen: list[ResultRef] = []
    for ref in sorted(batch, key=lambda r: len(r.text), reverse=True):
        if total <= budget_chars:
            break
        gain = len(ref.text) - (preview_chars + NOTE_CHARS)
        if gain <= 0:
            break
        chosen.append(ref)
        total -= gain
    return chosen


class ResultBudget:
    name = "budget"

    def __init__(self, state: ContextState) -> None:
        self.state = state

    async def apply(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        state = self.state
        state.begin_pass()  # the first stage: a new request is being prepared
        if state.overhead_of is not None:
            state.counter.overhead = state.overhead_of()
        state.counter.calibrate(ctx, messages)
        limits = state.thresholds
        plan = plan_budget(newest_batch(messages), limits.result_budget_chars, limits.preview_chars)
        if not plan:
            return None
        new_text = {
            (r.message, r.block): preview(r.text, state.save(r, messages), limits.preview_chars)
            for r in plan
        }
        out = replace_results(messages, new_text)
        counter = state.counter
        return Compacted(
            out,
            self.name,
            tokens_before=counter.estimate(messages),
            tokens_after=counter.estimate(out),
        )
