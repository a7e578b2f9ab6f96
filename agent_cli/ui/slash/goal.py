"""`/goal`: a check the agent keeps working toward, turn after turn, until it passes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_cli.ui.slash.host import Host

HELP = {'/goal [CMD|"TEXT"|off]': "keep working until CMD exits 0 (or TEXT is judged met)"}


def goal_command(host: Host, arg: str) -> None:
    runtime = host.runtime
    if not arg:
        goal = runtime.goal
        host.say(goal.status.line() + f"  ({goal.kind}: {goal.check})" if goal else "No goal.")
        return
    if arg == "off":
        runtime.set_goal(None)
        host.say("Goal off.")
        return
    quoted = len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'"
    goal = runtime.set_goal(arg[1:-1] if quoted else arg, "words" if quoted else "command")
    if goal is None:
        host.say("The goal is empty.", "red")
        return
    host.say(
        f"Goal set ({goal.kind}): {goal.check} — checked when each turn ends; /goal off ends it."
    )
