"""The settings of goals and claim checking (done means proven): the top-level keys `goal` and
`verify` (older than the extension), and what an untrusted workspace may keep of them."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import Field, field_validator

from agent_cli.core.settings.sections import Key, section
from agent_cli.core.settings.strict import StrictSettings

log = logging.getLogger(__name__)

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


def _goal_kept(local: Any, user: Any) -> Any:
    """A goal's limits only narrow what runs: all of them stay."""
    return local


def _verify_narrowed(verify: Any, user: Any) -> Any:
    """Without `commands`: what counts as a test run would let a repository vouch for its own
    claims."""
    if not isinstance(verify, dict) or not verify.get("commands"):
        return verify
    log.warning("the workspace's verify.commands are ignored until `agent trust`")
    return {k: v for k, v in verify.items() if k != "commands"}


KEYS = {
    "goal": Key(GoalSettings, Field(default_factory=GoalSettings), _goal_kept),
    "verify": Key(VerifySettings, Field(default_factory=VerifySettings), _verify_narrowed),
}


def goal_settings(settings: object) -> GoalSettings:
    return section(settings, "goal", GoalSettings, GoalSettings())


def verify_settings(settings: object) -> VerifySettings:
    return section(settings, "verify", VerifySettings, VerifySettings())
