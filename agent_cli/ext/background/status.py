"""What a background session says of itself as it works: its typed events (core/events.py)
become its record's state, turns, cost and last line (what `agent ps` shows), and lines of
text in its log (what `agent logs` prints). Text deltas only gather into the turn's reply: a
record is written at a tool's start and end, a model call, a question and the turn's end."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from agent_cli.core.events import (
    Answered,
    ErrorEvent,
    Event,
    PlanDecided,
    PlanPresented,
    QuestionAsked,
    TextDelta,
    ToolEnd,
    ToolStart,
    TurnEnd,
    UsageUpdate,
    WarningEvent,
)
from agent_cli.ext.background import registry

LAST_CHARS = 120
ENDINGS = {"done": "done", "max_turns": "failed", "error": "failed", "interrupted": "stopped"}


def one_line(text: str, limit: int = LAST_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _call(name: str, arguments: dict[str, Any]) -> str:
    shown = next((str(v) for v in arguments.values() if isinstance(v, str)), "")
    return one_line(f"{name} {shown}".strip())


class Status:
    """One session's record and log, kept as its events come."""

    def __init__(self, path: Path, out: TextIO = sys.stdout) -> None:
        self.path, self.out = path, out
        self.turns, self.reply, self.ended = 0, "", ""
        self.asking = 0  # things waiting for an answer: the record's last line stays theirs
        self.watchers: list[Callable[[Event], None]] = []  # attached clients (acp_hub.Hub)

    def set(self, **changes: Any) -> None:
        registry.update(self.path, **changes)

    def say(self, line: str) -> None:
        self.out.write(f"{time.strftime('%H:%M:%S')} {line}\n")
        self.out.flush()

    def event(self, event: Event) -> None:
        for watcher in self.watchers:
            watcher(event)
        if isinstance(event, TextDelta):
            self.reply += event.text
        elif isinstance(event, ToolStart | ToolEnd):
            self._tool(event)
        elif isinstance(event, UsageUpdate) and event.caller == "main":
            self.turns += 1
            self.set(turns=self.turns, cost_usd=event.session_cost_usd)
        elif isinstance(event, QuestionAsked | PlanPresented | Answered | PlanDecided):
            self._dialog(event)
        elif isinstance(event, WarningEvent | ErrorEvent):
            self.say(f"{event.type}: {event.message}")
        elif isinstance(event, TurnEnd):
            self._turn_end(event)

    def _tool(self, event: ToolStart | ToolEnd) -> None:
        if isinstance(event, ToolEnd):
            self._said(f"{'failed' if event.is_error else 'done'}: {one_line(event.summary)}")
        elif self.asking:  # the call it asks about: its question stays the last line
            self.say(_call(event.name, event.input))
        else:
            self._said(_call(event.name, event.input))

    def _dialog(self, event: QuestionAsked | PlanPresented | Answered | PlanDecided) -> None:
        """Logged only: the state is the Asker's (answering.py), which holds them."""
        if isinstance(event, QuestionAsked):
            self.say("asks: " + one_line(event.questions[0].question))
        elif isinstance(event, PlanPresented):
            self.say("presents a plan" + (f" ({event.path})" if event.path else ""))
        elif isinstance(event, Answered):
            self.say("answered" if not event.nobody else "nobody answered")
        else:
            self.say(f"plan: {event.choice}")

    def _said(self, line: str, **changes: Any) -> None:
        self._flush_reply()
        self.say(line)
        self.set(last=one_line(line), **changes)

    def _flush_reply(self) -> None:
        if self.reply.strip():
            self.say("assistant: " + self.reply.strip())
        self.reply = ""

    def _turn_end(self, event: TurnEnd) -> None:
        self.reply = self.reply or event.text
        self._flush_reply()
        self.ended = ENDINGS[event.stop]
        last = one_line(event.text) if event.text.strip() else f"turn ended: {event.stop}"
        self.set(last=last)

    def waiting(self, what: str, line: str) -> None:
        self.asking += 1
        self._said(f"waits for {what}: {line}", state=f"waiting: {what}")

    def answered(self) -> None:
        self.asking -= 1
        if not self.asking:
            self.set(state="working")

    def finish(self, state: str, reason: str = "") -> None:
        self._flush_reply()
        self.say(f"{state}{': ' + reason if reason else ''}")
        self.set(state=state, reason=reason)
