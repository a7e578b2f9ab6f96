"""The events of done-means-proven: a goal's progress after each check, and the claims of an
answer with their marks. Members of the Event union in `events.py`."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

GoalState = Literal["pursuing", "met", "unmet", "impossible", "budget-limited"]


class GoalStatus(BaseModel):
    """Where a goal stands: what `/goal` shows and `agent run`'s JSON result carries."""

    check: str = Field(description="The command run after each turn, or the goal in words.")
    kind: Literal["command", "words"] = "command"
    met: bool = False
    state: GoalState = "pursuing"
    attempts: int = Field(default=0, description="Turns whose end was checked.")
    last_exit: int | None = Field(default=None, description="The check's last exit code.")
    last_output: str = Field(default="", description="The tail of the check's last output.")
    reason: str = Field(default="", description="The evaluator's or the model's one line.")
    elapsed_s: float = 0.0
    cost_usd: float | None = Field(
        default=None, description="Spent while pursuing it; null while a model used has no price."
    )

    def result(self) -> dict[str, object]:
        return self.model_dump(mode="json", exclude={"elapsed_s"})

    def line(self) -> str:
        from agent_cli.core.text.money import cost  # a goal's line, shown once it is set

        ticked = self.elapsed_s or self.cost_usd is not None  # nothing spent before a turn
        spent = f", {cost(self.cost_usd)}" if ticked else ""  # n/a: a model without a price
        said = f": {self.reason}" if self.reason else ""
        exit_ = f", last exit {self.last_exit}" if self.last_exit is not None else ""
        return (
            f"goal {self.state} — {self.attempts} attempt{'s' if self.attempts != 1 else ''}"
            f"{exit_}, {self.elapsed_s:.0f} s{spent}{said}"
        )


class GoalChecked(BaseModel):
    """A turn ended under a goal and its check ran (or the pursuit ended)."""

    type: Literal["goal"] = "goal"
    goal: GoalStatus


class ClaimMark(BaseModel):
    """One claim of an answer ("All tests pass.") and whether the evidence backs it."""

    text: str
    kind: str = Field(description="tests, build, typecheck or lint.")
    verified: bool
    evidence: str = Field(description="The command that decides it and when, or why none does.")

    def mark(self) -> str:
        return f"{'✓' if self.verified else '✗'} {self.kind}: {self.text} — {self.evidence}"


class ClaimsChecked(BaseModel):
    """The final answer's claims, checked against the commands run since the last edit."""

    type: Literal["claims"] = "claims"
    claims: list[ClaimMark]
