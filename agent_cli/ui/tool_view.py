"""The full-screen view of the session's tool calls (Ctrl-O in `agent chat`): the chat screen
is suspended and this one runs in the alternate screen; scroll with the arrows and PgUp/PgDn,
Home/End to the first and last line (it opens at the newest call),
search with / or Ctrl-F (Enter finds, n the next match, N the previous), Esc or q returns.
Imports only prompt_toolkit and the screen's framed output."""

from __future__ import annotations

import re

from prompt_toolkit.application import Application
from prompt_toolkit.application.run_in_terminal import in_terminal
from prompt_toolkit.filters import is_searching
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.search import start_search
from prompt_toolkit.widgets import SearchToolbar, TextArea

from agent_cli.ui.screen.frames import screen_output

TITLE = " tool calls · ↑↓ PgUp/PgDn Home/End scroll · / search, n next · Esc returns"
CALL = re.compile(r"^── \d+\. ", re.M)  # a call's first line (ui/render/tool_log.py)


def newest_call(text: str) -> int:
    """Where the newest call starts: the view opens there, not at the session's first."""
    starts = [m.start() for m in CALL.finditer(text)]
    return starts[-1] if starts else 0


def tool_view(text: str) -> Application[None]:
    search = SearchToolbar(ignore_case=True)
    area = TextArea(text=text, read_only=True, scrollbar=True, search_field=search)
    kb = KeyBindings()

    @kb.add("escape", filter=~is_searching, eager=True)
    @kb.add("q", filter=~is_searching)
    def _close(event: KeyPressEvent) -> None:
        event.app.exit()

    @kb.add("/", filter=~is_searching)
    @kb.add("c-f", filter=~is_searching)
    def _search(event: KeyPressEvent) -> None:
        start_search(area.control)

    @kb.add("home", filter=~is_searching, eager=True)
    @kb.add("c-home", filter=~is_searching, eager=True)
    @kb.add("g", filter=~is_searching)
    def _top(event: KeyPressEvent) -> None:
        area.buffer.cursor_position = 0

    @kb.add("end", filter=~is_searching, eager=True)
    @kb.add("c-end", filter=~is_searching, eager=True)
    @kb.add("G", filter=~is_searching)
    def _bottom(event: KeyPressEvent) -> None:
        area.buffer.cursor_position = len(area.text)

    @kb.add("n", filter=~is_searching)
    @kb.add("N", filter=~is_searching)
    def _next(event: KeyPressEvent) -> None:
        state = event.app.current_search_state
        if event.data == "N":
            state = ~state  # the other direction
        area.buffer.apply_search(state, include_current_position=False)

    header = Window(FormattedTextControl(TITLE), height=1, style="reverse")
    app: Application[None] = Application(
        layout=Layout(HSplit([header, area, search]), focused_element=area),
        key_bindings=kb,
        full_screen=True,
        output=screen_output(),  # each frame whole, as the chat screen's own
    )
    app.ttimeoutlen = app.timeoutlen = 0.02  # Esc returns at once
    start = newest_call(text)
    area.buffer.cursor_position = start
    opened = False

    def _newest_on_top(app: Application[None]) -> None:
        nonlocal opened
        # the newest call's first line at the top of the first frame: scrolled only as far as
        # the cursor needs, it opened on the last row with the previous call filling the screen
        # (set here: the application's start resets every window's scroll)
        if not opened:
            opened = True
            area.window.vertical_scroll = text.count("\n", 0, start)

    app.before_render += _newest_on_top
    return app


async def show_tool_view(text: str) -> None:
    """Suspend the chat screen, show the view until Esc, then redraw the screen."""
    async with in_terminal():
        await tool_view(text).run_async()
