"""A status line of one's own: a command whose first output line `agent chat` shows in its
status bar, fed a JSON description of the session on stdin (Claude Code's `statusLine` keys
where they mean the same, so its scripts work). A section of the one Settings model."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent_cli.core.settings.strict import StrictSettings


class StatusLineSettings(StrictSettings):
    type: Literal["command"] = Field(
        default="command", description="Only 'command' (as Claude Code's statusLine says)."
    )
    command: str = Field(min_length=1, description="Shell command; its first line is shown.")
    refresh_s: float = Field(
        default=5, ge=0.5, le=3_600, description="Seconds between runs (and after every turn)."
    )
    timeout_ms: int = Field(
        default=500, ge=10, le=60_000, description="A run past this is killed; the old line stays."
    )
    padding: int = Field(default=0, ge=0, le=20, description="Spaces before the line.")

    def runs_outside(self) -> list[str]:
        """The command it runs outside the sandbox (policy/run_later.py)."""
        return [self.command]
