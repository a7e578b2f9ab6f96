"""`/goal`: a check the agent keeps working toward, turn after turn, until it passes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_cli.ext.goals.goal import Goal
    from agent_cli.runtime.extensions.contract import CommandPort


class GoalHolder(Protocol):
    """The run's goal (the extension's service)."""

    goal: Goal | None

    def set_goal(self, check: str | None, kind: str = "command") -> Goal | None: ...


def goal_command(port: CommandPort, goals: GoalHolder, arg: str) -> None:
    if not arg:
        goal = goals.goal
        port.say(goal.status.line() + f"  ({goal.kind}: {goal.check})" if goal else "No goal.")
        return
    if arg == "off":
        goals.set_goal(None)
        port.say("Goal off.")
        return
    quoted = len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'"
    goal = goals.set_goal(arg[1:-1] if quoted else arg, "words" if quoted else "command")
    if goal is None:
        port.say("The goal is empty.", "red")
        return
    port.say(
        f"Goal set ({goal.kind}): {goal.check} — checked when each turn ends; /goal off ends it."
    )
