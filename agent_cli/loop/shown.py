"""What the screen shows that the messages do not hold, written to the transcript beside them:
a finished call's line (the tool's own summary, whether it failed), the queued texts the
model was given, the error a turn failed with, a goal's check, how long the model thought, and
the texts the agent gave the model as the user (notices: never drawn as typed by the user).
A resumed REPL draws them again as they were (ui/render/history.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from agent_cli.core.events import ErrorEvent, Event, Steered, ThinkingDelta, ToolEnd, UsageUpdate
from agent_cli.core.verify_events import GoalChecked
from agent_cli.session.state import Session
from agent_cli.session.transcript import ShownRecord


def record_shown(session: Session, event: Event | GoalChecked) -> None:
    if isinstance(event, ToolEnd):
        session.record(
            ShownRecord(kind="tool", id=event.id, text=event.summary, is_error=event.is_error)
        )
    elif isinstance(event, ErrorEvent):  # the turn failed: its line, not a bare prompt
        session.record(ShownRecord(kind="error", text=event.message, is_error=True))
    elif isinstance(event, Steered):
        for text in event.texts:
            session.record(ShownRecord(kind="steered", text=text))
    elif isinstance(event, GoalChecked):
        session.record(
            ShownRecord(kind="goal", text=event.goal.line(), is_error=not event.goal.met)
        )


def record_notice(session: Session, source: str, text: str) -> None:
    """A text the agent gave the model as the user's (`source`: what gave it)."""
    if text.strip():
        session.record(ShownRecord(kind="notice", id=source, text=text))


@dataclass
class ShownTurn:
    """The main agent's turn events as they pass out of the loop: the error a turn failed with,
    and a thought's line once the thinking ends (timed as the screen times it)."""

    session: Session
    _thought_at: float = 0.0

    def passed(self, event: Event) -> None:
        if isinstance(event, ThinkingDelta):
            self._thought_at = self._thought_at or time.monotonic()
            return
        if self._thought_at and not isinstance(event, UsageUpdate):
            took = time.monotonic() - self._thought_at
            self._thought_at = 0.0
            self.session.record(ShownRecord(kind="thought", text=f"thought for {took:.0f}s"))
        if isinstance(event, ErrorEvent):
            record_shown(self.session, event)
