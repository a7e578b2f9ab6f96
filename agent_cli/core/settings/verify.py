"""The settings of goals, budgets and claim checking (done means proven): sections of the one
Settings model, kept apart so `schema.py` stays readable."""

from __future__ import annotations

from pydantic import Field, field_validator

from agent_cli.core.settings.strict import StrictSettings

CLAIM_KINDS = ("tests", "build", "typecheck", "lint")


class GoalSettings(StrictSettings):
    """A goal keeps the agent working, turn after turn, until its check passes."""

    max_turns: int = Field(
        default=10, ge=1, le=1_000, description="Turns a goal may take (`--max-turns`)."
    )
    max_minutes: float | None = Field(
        default=None, gt=0, description="Minutes a goal may take (`--max-minutes`); none: no limit."
    )
    check_timeout_s: float = Field(
        default=600, gt=0, le=7_200, description="A goal's check is killed after this long."
    )
    output_chars: int = Field(
        default=4_000, ge=200, le=100_000, description="Tail of a failed check sent to the model."
    )


class BudgetSettings(StrictSettings):
    """Spending limits: the run stops before the request that would pass `max_cost_usd`."""

    max_cost_usd: float | None = Field(
        default=None, gt=0, description="US dollars a session may spend (`--max-cost`)."
    )
    warn_usd_per_min: float | None = Field(
        default=None, gt=0, description="Chat warns once when a session spends faster than this."
    )


class VerifySettings(StrictSettings):
    """Claims in answers ("all tests pass") are checked against the commands that ran."""

    commands: dict[str, list[str]] = Field(
        default_factory=dict,
        description="More commands that count per kind (tests, build, typecheck, lint).",
    )

    @field_validator("commands")
    @classmethod
    def _known_kinds(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        unknown = sorted(set(value) - set(CLAIM_KINDS))
        if unknown:
            raise ValueError(f"unknown kind {unknown[0]!r}; one of {', '.join(CLAIM_KINDS)}")
        return value
