"""The context pipeline (SPEC §8): the ordered pre-request stages, in order of growing information
loss and cost (budget, snip, micro, summary; only the last calls a model), and the compactor that
serves the `compact` tool, /compact and prompt-too-long recovery. The summary's own code
(context/summary.py) is imported when a summary is first due, not before the first request."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from agent_cli.context.budget import ResultBudget
from agent_cli.context.micro import MicroCompact, shrink
from agent_cli.context.ports import Compacted, Stage, StageContext
from agent_cli.context.snip import Snip
from agent_cli.context.state import ContextState, current_request, request_visible
from agent_cli.context.tokens import TokenCounter, resolve_thresholds, value_tokens
from agent_cli.core.events import WarningEvent
from agent_cli.core.messages import Block, Message
from agent_cli.model.calls import ttl_seconds
from agent_cli.session.state import Session

log = logging.getLogger(__name__)


@dataclass
class Summariser:
    """Archive, summarise, replace; counts failures in a row for the whole session."""

    state: ContextState

    async def run(
        self,
        messages: list[Message],
        cut: int,
        ctx: StageContext,
        stage: str,
        focus: str | None = None,
        fallback: bool = False,
    ) -> Compacted | None:
        """Summarise messages[:cut] and keep the rest. Without `fallback` a failed call leaves the
        history as it was; with it (prompt-too-long) the archived part is dropped anyway, with a
        notice naming the archive."""
        from agent_cli.context.summary import (
            call_summariser,
            join_kept,
            summary_message,
            summary_request,
        )

        older, kept = messages[:cut], messages[cut:]
        if len(older) < 2:
            return None  # nothing worth a model call
        state = self.state
        request = current_request(ctx.session.current_request, messages)
        archive = state.archive(older)  # before the call: nothing exists only in memory
        summary: str | None = None
        try:
            cap = state.thresholds.summary_threshold * 2
            summary = await call_summariser(ctx, summary_request(ctx, older, focus, cap))
        except Exception as e:  # any failure of the helper call keeps the session going
            self._failed(ctx, stage, e)
            if not fallback:
                archive.unlink(missing_ok=True)
                return None
        else:
            state.summary_failures, state.auto_summary_off = 0, False
        sections = [provide() for provide in ctx.session.view_providers]
        shown = "" if request_visible(request, kept) else request
        out = join_kept(summary_message(summary, shown, archive, len(older), sections), kept)
        state.counter.forget(ctx.last_usage)
        state.prefix_broken = True
        counter = state.counter
        return Compacted(
            out,
            stage,
            archive_path=str(archive),
            tokens_before=counter.estimate(messages),
            tokens_after=counter.estimate(out),
        )

    def _failed(self, ctx: StageContext, stage: str, error: Exception) -> None:
        state = self.state
        state.summary_failures += 1
        log.warning(
            "%s: the summary call failed (%d in a row): %s", stage, state.summary_failures, error
        )
        if stage == "compact":
            ctx.emit(
                WarningEvent(message=f"Compaction failed ({error}); the history is unchanged.")
            )
        limit = state.thresholds.max_summary_failures
        if state.summary_failures >= limit and not state.auto_summary_off:
            state.auto_summary_off = True
            ctx.emit(
                WarningEvent(
                    message=f"Automatic context summaries are off for this session after {limit} "
                    f"failed attempts in a row (last: {error}). The history is kept; /compact "
                    "tries again."
                )
            )


class Summary:
    """Step 4 as a stage: only when the estimate is still over the summary threshold."""

    name = "summary"

    def __init__(self, summariser: Summariser) -> None:
        self.summariser = summariser

    async def apply(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        state = self.summariser.state
        state.counter.calibrate(ctx, messages)
        if state.auto_summary_off:
            return None
        if state.counter.estimate(messages) <= state.thresholds.summary_threshold:
            return None
        from agent_cli.context.summary import unseen_tail_start

        return await self.summariser.run(messages, unseen_tail_start(messages), ctx, self.name)


class ContextCompactor:
    """Compaction on request (after the round's results are all in) and on prompt-too-long."""

    def __init__(self, summariser: Summariser) -> None:
        self.summariser = summariser

    @property
    def state(self) -> ContextState:
        return self.summariser.state

    async def compact(
        self, messages: list[Message], focus: str | None, ctx: StageContext
    ) -> Compacted | None:
        from agent_cli.context.summary import unseen_tail_start

        cut = unseen_tail_start(messages)
        if cut < 2:
            ctx.emit(WarningEvent(message="Nothing to compact yet: the history is still short."))
            return None
        return await self.summariser.run(messages, cut, ctx, "compact", focus)

    async def recover(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        """Keep about the newest few messages, summarise the rest, and shorten large results of
        what is kept, so the one retry has a real chance."""
        from agent_cli.context.summary import reactive_cut

        state = self.summariser.state
        cut = reactive_cut(messages, state.thresholds.reactive_keep)
        compacted = await self.summariser.run(messages, cut, ctx, "reactive", fallback=True)
        base = compacted.messages if compacted else messages
        fitted = shrink(base, state, state.counter.estimate(base), placeholders=False)
        if compacted is None and fitted is messages:
            return None
        return Compacted(
            fitted,
            "reactive",
            archive_path=compacted.archive_path if compacted else None,
            tokens_before=state.counter.estimate(messages),
            tokens_after=state.counter.estimate(fitted),
        )


def request_overhead(system: list[Block], tools: list[dict[str, Any]]) -> int:
    """Raw tokens of what every request carries beside the messages."""
    return value_tokens(system) + value_tokens(tools)


def build_pipeline(session: Session, overhead: int = 0) -> tuple[list[Stage], ContextCompactor]:
    """The stages in order and the compactor, sharing one state for the session. Raises
    ConfigError when the thresholds contradict each other."""
    state = ContextState(
        thresholds=resolve_thresholds(session.settings, session.model),
        paths=session.paths,
        session_id=session.id,
        counter=TokenCounter(overhead=overhead),
        locate=session.locate,
        cache_ttl_s=ttl_seconds(session.settings.cache_ttl.main),  # only the main agent's
    )
    summariser = Summariser(state)
    stages: list[Stage] = [
        ResultBudget(state),
        Snip(state),
        MicroCompact(state),
        Summary(summariser),
    ]
    return stages, ContextCompactor(summariser)
