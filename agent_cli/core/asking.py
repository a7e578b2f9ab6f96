"""What the model may ask the user (`ask_user`) and hand over for approval (`present_plan`):
the validated shapes, the answers, and the headless answers `agent run` gives (nobody to ask).

The front ends inject their own ports on `ToolContext` (`ask`, `present_plan`); these defaults
are what a session without a user gets.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

HEADER_MAX = 12
DECLINED = "the user declined to answer"
NOBODY_TO_ASK = (
    "Nobody can be asked: this session runs without a user (agent run). Decide yourself, "
    "state the assumption you make in your reply, and go on."
)


class Option(BaseModel):
    """One answer the user may pick."""

    model_config = ConfigDict(extra="forbid")
    label: str = Field(min_length=1, description="The answer, short: shown in the picker.")
    description: str = Field(default="", description="What picking it means (optional).")


class Question(BaseModel):
    """One question with its options; the user may also type another answer."""

    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, description="The whole question.")
    header: str = Field(
        min_length=1, max_length=HEADER_MAX, description="A label of at most 12 characters."
    )
    options: Annotated[list[Option], Field(min_length=2, max_length=4)] = Field(
        description="2 to 4 options."
    )
    multi_select: bool = Field(default=False, description="True: several options may be picked.")


class Answer(BaseModel):
    """The user's answer to one question."""

    question: str
    chosen: list[str] = Field(default_factory=list, description="The labels picked.")
    typed: str = Field(default="", description="Text typed under 'other…'.")
    declined: bool = Field(default=False, description="Esc: the user declined to answer.")


PlanChoice = Literal["implement", "fresh", "keep_planning", "handed_over"]


class PlanDecisionResult(BaseModel):
    """What the user decided about a presented plan."""

    choice: PlanChoice
    feedback: str = Field(default="", description="Typed with 'keep planning'.")


async def headless_ask(questions: list[Question]) -> list[Answer] | None:
    """No user: None, and the tool tells the model to decide."""
    return None


async def headless_present(plan: str) -> PlanDecisionResult:
    """No user: the plan is the run's result and the run ends."""
    return PlanDecisionResult(choice="handed_over")


def answers_text(answers: list[Answer]) -> str:
    """The tool result: each question with the chosen labels or the typed text."""
    lines: list[str] = []
    for answer in answers:
        lines.append(f"Q: {answer.question}")
        if answer.declined:
            lines.append(f"A: ({DECLINED})")
            continue
        picked = [*answer.chosen, *([answer.typed] if answer.typed else [])]
        lines.append("A: " + ("; ".join(picked) if picked else "(nothing chosen)"))
    return "\n".join(lines)
