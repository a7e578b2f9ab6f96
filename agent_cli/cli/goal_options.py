"""`agent run`'s goal and budget options: a check to pass (`--goal-check`), a goal in words
(`--goal`), and the limits that end the pursuit."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from agent_cli.core.errors import UsageError

if TYPE_CHECKING:
    from agent_cli.core.settings.schema import Settings
    from agent_cli.ext.goals.goal import Limits

GOAL_CHECK = typer.Option(
    None, "--goal-check", help="Keep working until this command exits 0 (run after each turn)."
)
GOAL = typer.Option(None, "--goal", help="Keep working until a reviewer model judges this met.")
MAX_COST = typer.Option(
    None, "--max-cost", min=0.0, help="US dollars: stop before the request that would pass it."
)
MAX_MINUTES = typer.Option(
    None, "--max-minutes", min=0.0, help="Minutes a goal may take (default: settings)."
)


def goal_spec(
    check: str | None, words: str | None, minutes: float | None
) -> tuple[str, str] | None:
    """(the check, its kind) or None; a contradiction or an empty goal is a usage error."""
    if check is not None and words is not None:
        raise UsageError("--goal-check and --goal cannot be used together.")
    if minutes is not None and check is None and words is None:
        raise UsageError("--max-minutes limits a goal: give --goal-check or --goal.")
    if minutes is not None and minutes <= 0:
        raise UsageError("--max-minutes must be more than 0.")
    given = check if check is not None else words
    if given is None:
        return None
    if not given.strip():
        flag = "--goal-check" if check is not None else "--goal"
        raise UsageError(f"{flag}: the goal is empty.")
    return given, "command" if check is not None else "words"


def goal_limits(settings: Settings, turns: int | None, minutes: float | None) -> Limits:
    from agent_cli.ext.goals.goal import Limits

    goal = settings.goal
    return Limits(
        max_turns=turns or goal.max_turns,
        max_minutes=minutes or goal.max_minutes,
        max_cost_usd=settings.budget.max_cost_usd,
    )
