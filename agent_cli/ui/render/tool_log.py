"""The session's tool calls as the full-screen view (ui/tool_view.py) shows them: each call's
arguments, outcome and whole output (or diff), numbered, oldest first."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from agent_cli.core.events import ThinkingDelta, ToolEnd, ToolStart, UsageUpdate
from agent_cli.core.payloads import DiffDisplay
from agent_cli.ui.render.preview import refused

THOUGHT = "── ✻ thinking"
HEAD = "── "  # then the call's number
TAB = 4  # a tab shown as spaces to the next multiple (the view would draw ^I)


def _pretty(output: str) -> str:
    """An output that is one JSON value, indented (long one-line JSON wraps mid-word)."""
    if output.lstrip()[:1] not in ("{", "["):
        return output
    try:
        return json.dumps(json.loads(output), ensure_ascii=False, indent=2)
    except ValueError:
        return output


@dataclass
class ToolLog:
    calls: list[str] = field(default_factory=list)  # one finished call's text each
    _inputs: dict[str, dict[str, object]] = field(default_factory=dict)
    _thinking: str = ""

    def feed(self, event: object) -> None:
        if isinstance(event, ThinkingDelta):
            self._thinking += event.text or ("[redacted thinking]" if event.redacted else "")
            return
        if self._thinking and not isinstance(event, UsageUpdate):
            self.calls.append(f"{THOUGHT}\n{self._thinking.strip()}")
            self._thinking = ""
        if isinstance(event, ToolStart):
            self._inputs[event.id] = event.input
        elif isinstance(event, ToolEnd):
            number = self.count() + 1
            self.calls.append(self._entry(number, event))

    def _entry(self, n: int, event: ToolEnd) -> str:
        mark = "✗" if event.is_error else "!" if refused(event) else "✔"
        args = self._inputs.pop(event.id, None)
        lines = [f"{HEAD}{n}. {mark} {event.summary}"]
        if args:
            lines.append("input: " + json.dumps(args, ensure_ascii=False, indent=2)[:4000])
        if isinstance(event.display, DiffDisplay) and event.display.diff.strip():
            lines.append(event.display.diff.rstrip("\n"))
        if event.output.strip():
            lines.append(_pretty(event.output.rstrip("\n")))
        return "\n".join(lines).expandtabs(TAB)

    def count(self) -> int:
        return sum(not c.startswith(THOUGHT) for c in self.calls)

    def text(self) -> str:
        if not self.calls:
            return "No tool calls in this session yet."
        return "\n\n".join(self.calls) + "\n"
