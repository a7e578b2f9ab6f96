"""What the user tunes and looks at between turns (`runtime.tuning`): the model (/model),
extended thinking (/think), and what the context holds. Front ends ask and show."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from agent_cli.context.tokens import resolve_thresholds
from agent_cli.core.errors import ConfigError, UsageError
from agent_cli.core.settings.models import resolve_model
from agent_cli.core.settings.thinking import budget_problem

if TYPE_CHECKING:
    from agent_cli.context.breakdown import ContextBreakdown
    from agent_cli.core.options import Options
    from agent_cli.core.settings.schema import Settings
    from agent_cli.loop.agent import Agent
    from agent_cli.runtime.ports import Assembly
    from agent_cli.session.state import Session


class TunedRun(Protocol):
    """What tuning needs of the Runtime."""

    @property
    def settings(self) -> Settings: ...
    @property
    def session(self) -> Session: ...
    @property
    def options(self) -> Options: ...
    async def agent(self) -> Agent: ...


class Tuning:
    """Of the Runtime's current session, whichever it is."""

    def __init__(self, run: TunedRun, assembly: Callable[[], Assembly | None]) -> None:
        self.run, self._assembly = run, assembly

    @property
    def settings(self) -> Settings:
        return self.run.settings

    @property
    def session(self) -> Session:
        return self.run.session

    def set_model(self, model: str) -> str:
        """From the next request on, also in the sessions /clear and /resume open; an alias
        (`haiku`) is resolved through the settings. Returns the model set."""
        model = resolve_model(model, self.settings)
        self.session.model = model
        self.settings.model = model  # what a new session starts with
        self.run.options.model = model
        return model

    def set_thinking(self, budget: int | None) -> None:
        """Extended thinking from the next turn on (None: off); UsageError when the budget
        does not fit under max_tokens."""
        if problem := budget_problem(budget, self.settings.max_tokens):
            raise UsageError(f"{problem}.")
        self.settings.thinking.budget_tokens = budget

    async def context_breakdown(self) -> ContextBreakdown:
        """/context and `agent run`'s "context": the next request's tokens by category."""
        agent = await self.run.agent()
        assembly, model = self._assembly(), self.session.model
        assert assembly is not None
        assert assembly.meter is not None
        window = self.settings.context_window(model)
        return assembly.meter.measure(model, window, self.session.messages, agent.stage_context())

    def compact_at(self) -> int | None:
        """Tokens past which compaction starts for the session's model (None: contradicting
        thresholds, which the first request reports)."""
        try:
            return resolve_thresholds(self.settings, self.session.model).summary_threshold
        except ConfigError:
            return None
