"""The Runtime's part for what the user tunes and looks at between turns: the model (/model),
extended thinking (/think), and what the context holds. Mixed into the Runtime; front ends
ask and show."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.core.errors import UsageError
from agent_cli.core.settings.thinking import budget_problem

if TYPE_CHECKING:
    from agent_cli.core.options import Options
    from agent_cli.core.settings.schema import Settings
    from agent_cli.session.state import Session


class Tuning:
    """Mixed into the Runtime, which provides these."""

    session: Session
    options: Options

    @property
    def settings(self) -> Settings:
        raise NotImplementedError

    def set_model(self, model: str) -> None:
        """From the next request on, also in the sessions /clear and /resume open."""
        self.session.model = model
        self.settings.model = model  # what a new session starts with
        self.options.model = model

    def set_thinking(self, budget: int | None) -> None:
        """Extended thinking from the next turn on (None: off); UsageError when the budget
        does not fit under max_tokens."""
        if problem := budget_problem(budget, self.settings.max_tokens):
            raise UsageError(f"{problem}.")
        self.settings.thinking.budget_tokens = budget
