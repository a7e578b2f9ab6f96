"""The status bar's text and the terminal's title. The bar holds the built-in parts (what the
user must act on first); with a `status_line` command its line stands for the informational
ones (model, context, cost, MCP), as Claude Code's does. The title (OSC 2) says the session's
title and whether a turn runs; the terminal's own title is pushed at start and popped at exit.

The status line's stdin uses Claude Code's `statusLine` keys where they mean the same, so its
scripts work; what only this agent knows is under "agent"."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agent_cli import __version__
from agent_cli.tools.shell.confined import status_of
from agent_cli.ui.screen.status_fit import SEPARATOR, fit_parts
from agent_cli.ui.slash.host import ChatPart

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.contract import StatusPart
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.ui.screen.live import ChatScreen
    from agent_cli.ui.screen.side_panel import PanelState

log = logging.getLogger(__name__)
MIN_LINE = 12  # columns the status line keeps however narrow the screen
# escape sequences (colours, cursor moves, titles) and other control characters: the bar is one
# style, and a script's bytes must not move the cursor of the screen it is drawn in
CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?|[\x00-\x1f\x7f-\x9f]"
)
PUSH_TITLE, POP_TITLE = "\x1b[22;0t", "\x1b[23;0t"  # xterm's title stack (others ignore them)


@runtime_checkable
class Spend(Protocol):
    """The port "spend" (the cost extension's): the bar's part for what the session cost (its
    hit ratio, the budget's spent/limit), and the status line's facts of it."""

    def status(self) -> str: ...

    def facts(self) -> dict[str, Any]: ...


class OwnLine(Protocol):
    """A status line of one's own (the `status_line` setting), as the bar runs it."""

    line: str  # what it shows; empty: the built-in parts stand
    padding: int  # spaces before it

    def start(self) -> None: ...

    def poke(self) -> None:
        """Run now (a turn ended)."""
        ...

    async def aclose(self) -> None: ...


@runtime_checkable
class OwnLines(Protocol):
    """The port "status_line" (the daily extension's): the line, when the settings name one."""

    def line(
        self, payload: Callable[[], dict[str, Any]], changed: Callable[[], None]
    ) -> OwnLine | None: ...


def spend_of(runtime: Runtime) -> Spend | None:
    spend = runtime.port("spend")
    return spend if isinstance(spend, Spend) else None


def part_text(part: StatusPart) -> str:
    """An extension's part; what it raises is a word in the bar, never a dead screen."""
    try:
        return str(part.text())
    except Exception as e:
        return f"failed: {type(e).__name__}"


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def osc_title(text: str) -> str:
    # ended by ST, not BEL: a terminal that does not know OSC 2 would ring the bell (a ping the
    # user turned off, or never asked for)
    return f"\x1b]2;{CONTROL.sub('', text)[:200]}\x1b\\"


def status_input(runtime: Runtime, panel: PanelState, state: str, started: float) -> dict[str, Any]:
    """What the status line's command reads on stdin (the cost extension adds the cache's hit
    ratio, the session's cost and the budget under "agent")."""
    session, workspace = runtime.session, str(runtime.options.workspace)
    spend = spend_of(runtime)
    pct, used = panel.context_pct, panel.context_tokens
    api_s = sum(r.latency_s for r in runtime.call_log.records)
    return {
        "hook_event_name": "Status",
        "session_id": session.id,
        "transcript_path": str(runtime.paths.transcript(session.id)),
        "cwd": workspace,
        "version": __version__,
        "model": {"id": session.model, "display_name": session.model},
        "workspace": {"current_dir": workspace, "project_dir": workspace},
        "cost": {
            "total_cost_usd": round(panel.cost_usd, 6),
            "total_duration_ms": round(1000 * (time.monotonic() - started)),
            "total_api_duration_ms": round(1000 * api_s),
        },
        "context_window": {
            "total_input_tokens": panel.input_tokens + panel.cache_read,
            "total_output_tokens": panel.output_tokens,
            "context_window_size": panel.context_window,
            "used_percentage": pct,
            "remaining_percentage": None if pct is None else max(0, 100 - pct),
            "current_usage": current_usage(used),
        },
        "exceeds_200k_tokens": (used or 0) > 200_000,
        "agent": {
            "title": session.title,
            "state": state,
            "permission_mode": runtime.permission_mode,
            "compact_at_tokens": panel.compact_at,
            "compactions": panel.compactions,
            **(spend.facts() if spend is not None else {}),
        },
    }


def current_usage(used: int | None) -> dict[str, int] | None:
    """The newest request's size as one figure: the sum scripts compute of it is right."""
    if used is None:
        return None
    return {
        "input_tokens": used,
        "output_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


class StatusBar:
    """What the REPL's status bar and the terminal's title say; `panel` is read afresh (a
    switch of session brings a new one)."""

    def __init__(self, runtime: Runtime, panel: Callable[[], PanelState], screen: ChatScreen):
        self.runtime, self.panel, self.screen = runtime, panel, screen
        self.state = "idle"
        self.started = time.monotonic()
        self._title = ""
        self.parts = runtime.parts("status_parts")  # the extensions' (background sessions waiting)
        lines = runtime.port("status_line")
        self.line: OwnLine | None = None
        if isinstance(lines, OwnLines):
            payload = lambda: status_input(runtime, panel(), self.state, self.started)  # noqa: E731
            self.line = lines.line(payload, screen.invalidate)

    def start(self) -> None:
        self.screen.ping(PUSH_TITLE)
        self.set_state("idle")
        if self.line is not None:
            self.line.start()
        for part in self.parts:
            try:
                part.watch(self.screen.invalidate)
            except Exception as e:  # an extension's part: its failure is its own
                log.warning("a status part failed to start: %s", e)

    def set_state(self, state: str) -> None:
        """A turn began or ended: the title says so, and the status line is run again."""
        self.state = state
        self.retitle()

    def retitle(self) -> None:
        """The title again when the session's title or state changed (the status line too,
        which shows either)."""
        session = self.runtime.session
        name = session.title or self.runtime.options.workspace.name or "agent"
        title = f"{name} · {self.state} · agent"
        if title != self._title:
            self._title = title
            self.screen.ping(osc_title(title))
            if self.line is not None and self.state == "idle":
                self.line.poke()

    async def aclose(self) -> None:
        if self.line is not None:
            await self.line.aclose()
        for part in self.parts:
            part.close()
        self.screen.ping(POP_TITLE)  # the terminal's own title back

    def _sandbox(self) -> str:
        """`sandbox bwrap`, `no sandbox` or `sandbox off`; nothing without the extension."""
        sandbox = status_of(self.runtime.extension)
        return sandbox.state() if sandbox is not None else ""

    def _extension_part(self) -> str:
        """An extension's part (the MCP servers' "mcp 2/3"), "" with none."""
        part = self.runtime.port("chat_part")
        return (part.status() or "") if isinstance(part, ChatPart) else ""

    def text(self, busy: bool, queued: int, width: int, awaiting: str = "") -> str:
        """`awaiting`: what a question that waits for the user asks of them (it stands for
        "working…": the turn or command is not working, it waits)."""
        asyncio.get_running_loop().call_soon(self.retitle)  # after the frame (/rename, say)
        panel = self.panel()
        pct = panel.context_pct
        mine = self.line.line if self.line is not None else ""
        spend = spend_of(self.runtime)
        spent = spend.status() if spend is not None else ""
        info = [] if mine else [
            (self.runtime.session.model, 3),
            (f"ctx {'-' if pct is None else f'{pct}%'}", 5),
            (spent or panel.cost_label(), 6),
            (self._extension_part(), 4),
        ]  # fmt: skip
        parts = [  # (text, priority): a narrow screen leaves out the lowest first
            (awaiting or ("working… Ctrl-C stops" if busy else ""), 9),
            (f"{queued} queued" if queued else "", 8),
            (f"mode {self.runtime.permission_mode}", 7),
            *((part_text(part), 8) for part in self.parts),  # after the three the own line keeps
            *info,
            (self._sandbox(), 6),
        ]
        if not mine:
            return fit_parts(parts, width)
        padding = " " * (self.line.padding if self.line is not None else 0)
        # the user's line is theirs to shape: cut to the room the parts above it leave
        room = width - len(fit_parts(parts[:3], width)) - len(SEPARATOR)
        parts.insert(2, (cut(padding + mine, max(room, MIN_LINE)), 6))
        return fit_parts(parts, width)
