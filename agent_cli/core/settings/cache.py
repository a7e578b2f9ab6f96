"""How long the prompt cache keeps what a request writes: `5m` (the API's default) or `1h`, for
the main agent and for subagents separately. A 1h write costs 2x base input instead of 1.25x, and
pays off when the gap between an agent's requests can pass five minutes (a subagent waiting on a
long command, a user thinking between prompts)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from agent_cli.core.settings.strict import StrictSettings

CacheTtl = Literal["5m", "1h"]


class CacheTtlSettings(StrictSettings):
    """`{"main": "5m", "subagents": "1h"}`; one string ("1h") sets both."""

    main: CacheTtl = Field(default="5m", description="The main agent's prompt-cache TTL.")
    subagents: CacheTtl = Field(default="5m", description="Subagents' prompt-cache TTL.")

    @model_validator(mode="before")
    @classmethod
    def _one_for_both(cls, raw: Any) -> Any:
        if isinstance(raw, str):
            return {"main": raw, "subagents": raw}
        return raw

    def for_caller(self, caller: str) -> CacheTtl:
        return self.subagents if caller.startswith("subagent") else self.main
