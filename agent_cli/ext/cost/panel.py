"""The cost extension in `agent chat`: `/cost`, its side panel part, and the status bar's part
(the port "spend", which ui/status_bar.py asks for). Each reads the run's `cost` service afresh."""

from __future__ import annotations

from typing import Any

from agent_cli.core.settings.features import BudgetSettings
from agent_cli.ext.cost import view
from agent_cli.ext.cost.records import CostSummary
from agent_cli.runtime.extensions.contract import CommandPort, ExtensionContext


def summary_of(context: ExtensionContext) -> CostSummary:
    """The run's calls summed; none when the service is not there (or knows none yet)."""
    service = context.services("cost")
    made = getattr(service, "summary", None)
    summary = made() if callable(made) else None
    return summary if isinstance(summary, CostSummary) else CostSummary()


def limit_of(context: ExtensionContext) -> float | None:
    """`--max-cost` / `budget.max_cost_usd`; None without a budget."""
    budget = getattr(context.settings, "budget", None)
    return budget.max_cost_usd if isinstance(budget, BudgetSettings) else None


def cost_command(port: CommandPort, arg: str) -> None:
    """/cost: the table per agent, the budget's meter, the misses with their cause."""
    context = port.context
    lines = view.cost_lines(summary_of(context), limit_of(context), port.columns())
    port.say("\n".join(lines))


class CostPart:
    """The side panel's "Cost": hit ratio and session cost, the budget's meter, the misses."""

    name = "Cost"

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context

    def lines(self, width: int) -> list[str]:
        return view.panel_lines(summary_of(self.context), limit_of(self.context), width)


class SpendPort:
    """The port "spend": the status bar's part and the status line's facts."""

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context

    def status(self) -> str:
        return view.status_text(summary_of(self.context), limit_of(self.context))

    def facts(self) -> dict[str, Any]:
        return view.status_facts(summary_of(self.context), limit_of(self.context))
