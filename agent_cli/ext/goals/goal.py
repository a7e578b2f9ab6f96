"""A goal: after each turn its check decides met or not; when not, what the check said goes to
the model as the next message, until the check passes, the model says why it cannot be done,
or a limit (turns, minutes, cost) is reached."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Literal

from agent_cli.core.text.counts import counted
from agent_cli.core.text.money import cost
from agent_cli.core.verify_events import GoalStatus

GIVE_UP = "GOAL IMPOSSIBLE:"
# "GOAL IMPOSSIBLE: no network", "**Goal impossible** — the API is gone", "goal impossible - ..."
_GIVE_UP = re.compile(
    r"^[\s>*_#`]*goal\s+impossible[\s*_`]*[:\-\u2014\u2013]\s*(?P<reason>.*\S)", re.I | re.M
)
_MIN_REASON = 3  # characters: a bare "GOAL IMPOSSIBLE:" is a stop, not a reason


@dataclass(frozen=True)
class Limits:
    max_turns: int
    max_minutes: float | None = None
    max_cost_usd: float | None = None
    flags: bool = False  # `agent run`'s: a limit reached names its flag, in chat what to do

    def named(self, limit: str) -> str:
        """What sets `limit` ("turns", "minutes", "cost") where the goal was set."""
        return (FLAGS if self.flags else SETTINGS)[limit]


FLAGS = {"turns": "--max-turns", "minutes": "--max-minutes", "cost": "--max-cost"}
SETTINGS = {
    "turns": "setting goal.max_turns",
    "minutes": "setting goal.max_minutes",
    "cost": "setting budget.max_cost_usd",
}


@dataclass
class Goal:
    """One goal being pursued: a command (`--goal-check`) or words (`--goal`)."""

    check: str
    kind: Literal["command", "words"]
    limits: Limits
    started: float = field(default_factory=time.monotonic)
    cost_at_start: float = 0.0
    status: GoalStatus = field(init=False)

    def __post_init__(self) -> None:
        self.status = GoalStatus(check=self.check, kind=self.kind)

    @property
    def active(self) -> bool:
        return self.status.state == "pursuing"

    def instruction(self) -> str:
        """Appended to the first message: what will be checked and how to give up."""
        what = (
            f"the command `{self.check}` is run in the workspace and must exit 0"
            if self.kind == "command"
            else f"a reviewer judges from the commands you run and the diff whether this "
            f"holds: {self.check}"
        )
        return (
            f"[Goal: when your turn ends, {what}. Until then you get what it said and keep "
            f"working. If it cannot be reached, end your reply with a line "
            f"`{GIVE_UP} <the reason>`.]"
        )

    def tick(self, spent: float | None) -> None:
        self.status.elapsed_s = time.monotonic() - self.started
        self.status.cost_usd = None if spent is None else spent - self.cost_at_start

    def record(self, met: bool, exit_code: int | None, output: str, reason: str = "") -> None:
        status = self.status
        status.attempts += 1
        status.met, status.last_exit, status.last_output, status.reason = (
            met, exit_code, output, reason,
        )  # fmt: skip
        if met:
            status.state = "met"

    def end(self, state: Literal["unmet", "impossible", "budget-limited"], reason: str) -> None:
        self.status.state, self.status.reason = state, reason

    def limit_reached(self, spent: float | None) -> tuple[str, str] | None:
        """Which limit ("turns", "minutes", "cost") stops the next turn, and why; or None."""
        limits, status = self.limits, self.status
        again = "" if limits.flags else "; /goal <check> again to go on"
        if status.attempts >= limits.max_turns:
            turns = status.attempts
            named = f"{limits.named('turns')} {limits.max_turns}{again}"
            return "turns", f"not met in {counted(turns, 'turn')} ({named})"
        if limits.max_minutes is not None and status.elapsed_s >= limits.max_minutes * 60:
            named = f"{limits.named('minutes')} {limits.max_minutes:g}{again}"
            return "minutes", f"{status.elapsed_s / 60:.1f} minutes passed ({named})"
        limit = limits.max_cost_usd
        if limit is not None and spent is not None and spent >= limit:
            return "cost", f"{cost(spent)} spent ({limits.named('cost')} {limit:g})"
        return None

    def feedback(self) -> str:
        """The next user message after a check that did not pass."""
        status = self.status
        if self.kind == "words":
            said = f"A reviewer judged the goal not met yet: {status.reason or 'no reason given'}"
        else:
            code = "no exit code (it timed out or could not start)" if status.last_exit is None \
                else f"exit code {status.last_exit}"  # fmt: skip
            tail = status.last_output.strip() or "(no output)"
            said = (
                f"The goal's check `{self.check}` failed with {code}. The end of its output:\n"
                f"<check_output>\n{tail}\n</check_output>"
            )
        return (
            f"{said}\nKeep working until it passes (attempt {status.attempts + 1}). If it cannot "
            f"be reached, end your reply with a line `{GIVE_UP} <the reason>`."
        )


def gave_up(answer: str) -> str | None:
    """The model's stated reason for a goal that cannot be met; None when it gave none."""
    every = list(_GIVE_UP.finditer(answer))
    if not every:
        return None
    found = every[-1]  # the last one counts: it may quote the instruction before answering
    reason = found.group("reason").strip(" *_`<>")
    return reason if len(reason) >= _MIN_REASON and reason != "the reason" else None
