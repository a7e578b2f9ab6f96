"""Budgets that stop: a pipeline stage that, before every model request, projects what the
request will cost and stops the turn when it would take the session past `max_cost_usd`; it
warns once when 80 % of that budget is spent, and once when the session spends faster than
`warn_usd_per_min`."""

from __future__ import annotations

import time
from collections.abc import Callable

from agent_cli.context.ports import Compacted, StageContext
from agent_cli.context.tokens import raw_tokens
from agent_cli.core.errors import AgentError
from agent_cli.core.events import WarningEvent
from agent_cli.core.messages import Message
from agent_cli.core.settings.features import BudgetSettings
from agent_cli.model.usage import Usage

MIN_RATE_WINDOW_S = 10.0  # a rate over a shorter span is noise (one request's burst)
WARN_SHARE = 0.8  # of max_cost_usd: said once, before the request that follows it


class BudgetExceeded(AgentError):
    """The next request would take the session past its budget: it is never sent."""


def projected_cost(messages: list[Message], ctx: StageContext) -> float:
    """What the next request should cost: the previous one's tokens (its cached part read from
    the cache again) plus the messages added since, at the model's price (0 when unpriced)."""
    session = ctx.session
    price = session.settings.prices.get(session.model)
    added = raw_tokens(messages[ctx.last_request_messages :] if ctx.last_usage else messages)
    last = ctx.last_usage or Usage()
    usage = Usage(
        input_tokens=last.input_tokens + added,
        cache_read_input_tokens=last.cache_read_input_tokens + last.cache_creation_input_tokens,
        output_tokens=last.output_tokens,
    )
    return usage.cost(price) or 0.0


class BudgetStage:
    name = "budget"

    def __init__(self, settings: BudgetSettings, clock: Callable[[], float] = time.monotonic):
        self.settings = settings
        self.clock = clock
        self.started: float | None = None
        self.spent_at_start = 0.0
        self.warned = False
        self.warned_share = False

    async def apply(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        spent = ctx.session.priced_usd  # the known part: an unpriced model cannot be held back
        if self.started is None:
            self.started, self.spent_at_start = self.clock(), spent
        limit = self.settings.max_cost_usd
        if limit is not None:
            self._share(spent, limit, ctx)
            upcoming = projected_cost(messages, ctx)
            if spent + upcoming > limit:
                raise BudgetExceeded(
                    f"budget reached: ${spent:.4f} spent, the next request would cost about "
                    f"${upcoming:.4f} and pass --max-cost {limit:g}; it was not sent"
                )
        self._rate(spent, ctx)
        return None

    def _share(self, spent: float, limit: float, ctx: StageContext) -> None:
        if self.warned_share or spent < WARN_SHARE * limit:
            return
        self.warned_share = True
        message = (
            f"{100 * spent / limit:.0f}% of the budget spent: ${spent:.2f} of --max-cost {limit:g}"
        )
        ctx.emit(WarningEvent(message=message))

    def _rate(self, spent: float, ctx: StageContext) -> None:
        warn = self.settings.warn_usd_per_min
        if warn is None or self.started is None:
            return
        minutes = max(self.clock() - self.started, MIN_RATE_WINDOW_S) / 60
        rate = (spent - self.spent_at_start) / minutes
        if rate > warn and not self.warned:
            self.warned = True
            message = f"spending ${rate:.2f}/min, faster than budget.warn_usd_per_min ({warn:g})"
            ctx.emit(WarningEvent(message=message))
        elif rate <= warn:
            self.warned = False  # said again if it speeds up again
