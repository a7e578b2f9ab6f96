"""A status line of one's own: a command whose first output line `agent chat` shows in its
status bar, fed a JSON description of the session on stdin (Claude Code's `statusLine` keys
where they mean the same, so its scripts work): the top-level key `status_line` (older than
the extension). A workspace's own waits for `agent trust`: a command run every few seconds, as
hooks are run."""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import Field

from agent_cli.core.settings.sections import Key, section
from agent_cli.core.settings.strict import StrictSettings

log = logging.getLogger(__name__)


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


def _untrusted(local: Any, user: Any) -> None:
    """Nothing of an untrusted workspace's (see the module's docstring)."""
    if local:
        log.warning("the workspace's status_line command is ignored until `agent trust`")


STATUS_LINE = Key(
    StatusLineSettings | None,
    Field(default=None, description="A command whose first line `agent chat` shows (trust)."),
    _untrusted,
)


def status_line_settings(settings: object) -> StatusLineSettings | None:
    """The settings' `status_line`; None where none is set (or the settings have no such key)."""
    return section(settings, "status_line", StatusLineSettings, None)
