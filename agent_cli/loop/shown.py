"""What the screen shows that the messages do not hold, written to the transcript beside them:
a finished call's line (the tool's own summary, whether it failed), the queued texts the
model was given and the error a turn failed with. A resumed REPL draws them again as they
were (ui/render/history.py)."""

from __future__ import annotations

from agent_cli.core.events import ErrorEvent, Event, Steered, ToolEnd
from agent_cli.session.state import Session
from agent_cli.session.transcript import ShownRecord


def record_shown(session: Session, event: Event) -> None:
    if isinstance(event, ToolEnd):
        session.record(
            ShownRecord(kind="tool", id=event.id, text=event.summary, is_error=event.is_error)
        )
    elif isinstance(event, ErrorEvent):  # the turn failed: its line, not a bare prompt
        session.record(ShownRecord(kind="error", text=event.message, is_error=True))
    elif isinstance(event, Steered):
        for text in event.texts:
            session.record(ShownRecord(kind="steered", text=text))
