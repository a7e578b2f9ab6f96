"""One turn on screen: events in, scrollback lines out, and the live region's text.

Commit unit = a finished markdown block (blank line outside a fence) or a finished tool call; the
live region holds only the unfinished block (cropped to its tail) and the running calls' spinners.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from agent_cli.core.events import (
    Retrying,
    SourcesCited,
    StreamRestart,
    SubagentProgress,
    TextDelta,
    ThinkingDelta,
    ToolEnd,
    ToolStart,
    TurnEnd,
    UsageUpdate,
)
from agent_cli.ui.render import render

LIVE_LINES = 10  # the unfinished block's tail shown in the live region


class Stopwatch:
    """Seconds since `start`, less the time it was held: a timer on screen counts the agent's
    time, never the time a question waited for the user. Holds may overlap (counted once)."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self._started = now()
        self._held = 0.0  # seconds held, of holds that ended
        self._since: float | None = None  # when the holds now open began
        self._depth = 0

    def start(self) -> None:
        self._started, self._held = self.now(), 0.0
        self._since = self._started if self._depth else None

    def hold(self) -> None:
        if self._depth == 0:
            self._since = self.now()
        self._depth += 1

    def resume(self) -> None:
        self._depth = max(self._depth - 1, 0)
        if self._depth == 0 and self._since is not None:
            self._held += self.now() - self._since
            self._since = None

    def elapsed(self) -> float:
        now = self.now()
        held = self._held + (now - self._since if self._since is not None else 0.0)
        return max(now - self._started - held, 0.0)


def subagent_part(progress: SubagentProgress | None) -> str:
    """` · 3 tool calls · $0.012` on a running subagent's line: its work and spend so far."""
    if progress is None:
        return ""
    calls = progress.tool_calls
    spent = "" if progress.cost_usd is None else f" · ${progress.cost_usd:.3f}"
    return f" · {calls} tool call{'s' if calls != 1 else ''}{spent}"


@dataclass
class TurnView:
    width: int = 80
    color: bool = True
    text: str = ""  # the unfinished reply text since the last commit
    running: dict[str, str] = field(default_factory=dict)  # tool_use id -> label
    waiting: bool = False  # a request is out and nothing has streamed yet
    frame: int = 0
    now: Callable[[], float] = time.monotonic
    turn: Stopwatch | None = None  # the turn's time (the spinner's elapsed seconds); begin()
    out_tokens: int = 0  # the turn's output tokens of finished requests
    streamed: int = 0  # characters of the request being answered (~4 a token, until it ends)
    _tool_started: dict[str, Stopwatch] = field(default_factory=dict)
    _asked: dict[str, int] = field(default_factory=dict)  # call id -> questions open on it
    _subagent_tools: dict[str, SubagentProgress] = field(default_factory=dict)  # by task call id
    _cache: tuple[str, int, str] | None = None
    thinking: str = ""  # the thinking being streamed (folded to one line until it ends)
    _thought_at: float = 0.0  # monotonic: when it began
    _retry: tuple[str, float] | None = None  # a retry's reason and when it is sent (monotonic)

    def begin(self) -> None:
        self.turn = Stopwatch(self.now)
        self.out_tokens, self.streamed, self.waiting = 0, 0, True

    @contextmanager
    def asked(self, call_id: str = "") -> Iterator[None]:
        """The user is asked something: the turn's timer and the asked call's stand still
        (every running call's when the question names none: ask_user, a plan). The call may
        be asked about before its start reaches the screen: it starts held then."""
        ids = [call_id] if call_id else list(self._tool_started)
        held = [self._tool_started[i] for i in ids if i in self._tool_started]
        held += [self.turn] if self.turn is not None else []
        for id_ in ids:
            self._asked[id_] = self._asked.get(id_, 0) + 1
        for watch in held:
            watch.hold()
        try:
            yield
        finally:
            for id_ in ids:
                self._asked[id_] -= 1
                if not self._asked[id_]:
                    del self._asked[id_]
            if self.turn is not None:
                self.turn.resume()
            for id_ in ids:
                if id_ in self._tool_started:
                    self._tool_started[id_].resume()

    def feed(self, event: Any) -> list[str]:
        """Apply one event; return what goes to scrollback now, in order."""
        if isinstance(event, ThinkingDelta):
            self._thought_at = self._thought_at or self.now()
            self.waiting = False
            self.thinking += event.text or ("[redacted thinking]" if event.redacted else "")
            self.streamed += len(event.text)
            return []
        out = self._thought() if not isinstance(event, UsageUpdate) else []
        return [*out, *self._feed(event)]

    def _thought(self) -> list[str]:
        """Thinking that ended: one folded line in scrollback (Ctrl-O shows it whole)."""
        if not self.thinking:
            return []
        took = self.now() - self._thought_at
        self.thinking, self._thought_at = "", 0.0
        line = f"✻ thought for {took:.0f}s (Ctrl-O shows it)"
        return [render.info_line(line, self.width, self.color, "dim italic")]

    def _feed(self, event: Any) -> list[str]:
        self._retry = None
        if isinstance(event, TextDelta):
            self.waiting = False
            self.text += event.text
            self.streamed += len(event.text)
            blocks, self.text = render.split_blocks(self.text)
            return [self._block(b) for b in blocks]
        if isinstance(event, StreamRestart):
            self.text, self.waiting, self.streamed, self.thinking = "", True, 0, ""
            return [
                render.info_line(
                    f"↻ the reply broke ({event.reason}); retrying",
                    self.width,
                    self.color,
                    "yellow",
                )
            ]
        if isinstance(event, Retrying):  # what streamed of a reply gone silent is dropped
            self.text, self.waiting, self.streamed, self.thinking = "", True, 0, ""
            self._retry = (event.reason, self.now() + event.delay_s)
            return [render.info_line(f"↻ {event.line()}", self.width, self.color, "yellow")]
        if isinstance(event, ToolStart):
            return self._started(event)
        if isinstance(event, ToolEnd):
            self.running.pop(event.id, None)
            self._tool_started.pop(event.id, None)
            self._subagent_tools.pop(event.id, None)
            if not self.running:
                self.waiting = True
            return [render.tool_end(event, self.width, self.color)]
        if isinstance(event, SubagentProgress):
            self._subagent_tools[event.id] = event
            return []
        if isinstance(event, UsageUpdate) and event.caller == "main":
            self.out_tokens += event.output_tokens
            self.streamed = 0
            return []
        if isinstance(event, TurnEnd):
            self.waiting = False
            return self.flush()
        # the sources follow the reply that cites them
        out = self.flush() if isinstance(event, SourcesCited) else []
        line = render.event_line(event, self.width, self.color)
        return [*out, line] if line is not None else out

    def _started(self, event: ToolStart) -> list[str]:
        out = self.flush()
        self.running[event.id] = render.tool_label(event.name, event.input)
        watch = self._tool_started[event.id] = Stopwatch(self.now)
        for _ in range(self._asked.get(event.id, 0)):  # asked about before it showed
            watch.hold()
        return out

    def flush(self) -> list[str]:
        """Commit the unfinished block as it is (a tool call or the turn's end closes it)."""
        text, self.text = self.text, ""
        return [self._block(text)] if text.strip() else []

    def interrupted(self) -> list[str]:
        out = self._thought() + self.flush()
        for label in self.running.values():
            out.append(render.info_line(f"⏹ {label} (cancelled)", self.width, self.color))
        self.running.clear()
        self.waiting = False
        out.append(render.info_line("⏹ interrupted", self.width, self.color, "yellow"))
        return out

    def _block(self, text: str) -> str:
        # a blank line after each block: committed one at a time, they would run together
        return render.markdown(text, self.width, self.color) + "\n"

    @property
    def spinning(self) -> bool:
        """A spinner line is shown: running calls, or a request with nothing streamed yet."""
        return bool(self.running) or (self.waiting and not self.text.strip())

    def live(self, width: int) -> str:
        """The unfinished block's tail, then one spinner line per running call."""
        lines: list[str] = []
        if self.thinking:
            lines.append(render.thinking_line(self.thinking, width, self.color))
        if self.text.strip():
            key = (self.text, width)
            if self._cache is None or self._cache[:2] != key:
                rendered = render.markdown(self.text, width, self.color)
                self._cache = (self.text, width, rendered)
            lines = self._cache[2].split("\n")[-LIVE_LINES:]
        for id_, label in self.running.items():
            watch = self._tool_started.get(id_)
            took = watch.elapsed() if watch is not None else 0.0
            done = subagent_part(self._subagent_tools.get(id_))
            lines.append(render.spinner_line(f"{label}{done}  {took:.0f}s", self.frame, self.color))
        if self.waiting and not lines:
            lines.append(render.spinner_line(self._waiting_line(), self.frame, self.color))
        return "\n".join(lines)

    def _waiting_line(self) -> str:
        """`thinking…`, or a retry's countdown (a rate limit may ask minutes; Esc ends it)."""
        left = self._retry[1] - self.now() if self._retry is not None else 0.0
        if self._retry is None or left < 0.5:
            return f"thinking…  {self.status()}"
        return f"{self._retry[0]}: retrying in {left:.0f} s · Esc stops  {self.status()}"

    def elapsed(self) -> float:
        """The turn's seconds so far, less what its questions waited for the user."""
        return self.turn.elapsed() if self.turn is not None else 0.0

    def status(self) -> str:
        """`12s · ↓ 340 tokens`: the turn's time and output so far."""
        elapsed = self.elapsed()
        out = self.out_tokens + self.streamed // 4
        return f"{elapsed:.0f}s · ↓ {render.tokens(out)} tokens"
