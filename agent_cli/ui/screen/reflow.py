"""The bottom region as the terminal holds it, for the two moves that bypass a full redraw.

A commit writes finished lines over the top of the region and lets prompt-toolkit diff the rest
against its last frame shifted down by those rows: only the cells that changed are sent again.
A change of columns has the region erased from where the terminal now holds its top and drawn
anew (`erase_region`): where rows are cut, as many rows above the cursor as before; where they
are re-wrapped, as many as its rows now take (ui/screen/region_rows.py). Nothing above the
region is written again.
Imports only prompt_toolkit: the screen is drawn before anything heavy is loaded.
"""

from __future__ import annotations

import os
import re
from typing import Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Point
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.utils import get_cwidth, to_str

from agent_cli.ui.screen.frames import FramedOutput


class Keeper(Protocol):
    """What keeps the region on the screen's last rows (ui/screen/anchor.py: BottomAnchor)."""

    filler: int

    def make_room(self, app: Application[None], rows: int) -> None: ...

    def shrunk(self, app: Application[None], before: int, after: int) -> bool: ...


ERASE_LINE, NEXT_LINE, ERASE_REST = "\x1b[2K", "\r\n", "\x1b[K"
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def cells(line: str) -> int:
    """Columns `line` takes on screen (escape sequences take none)."""
    return get_cwidth(_ESCAPES.sub("", line))


def rows_of(used: int, width: int) -> int:
    """Rows a line of `used` cells takes at `width` columns."""
    return max(1, -(-used // max(width, 1)))


def terminal_reflows() -> bool:
    """Whether the terminal re-wraps its rows on a resize: most do (tmux, VTE, kitty, iTerm2,
    Windows Terminal); xterm and the Linux console cut them. AGENT_REFLOW=0/1 says so outright."""
    told = os.environ.get("AGENT_REFLOW")
    if told in ("0", "1"):
        return told == "1"
    return not (os.environ.get("XTERM_VERSION") or os.environ.get("TERM") == "linux")


def erase_region(app: Application[None], up: int, texts: list[str], down: int) -> None:
    """Erase from `up` rows above the cursor (where the terminal now has the region's top)
    down, write `texts` there again at the terminal's width (commits it may have put elsewhere),
    and let the region be drawn whole `down` rows below them, at the new size."""
    renderer, output, size = app.renderer, app.output, app.output.get_size()
    output.cursor_up(up)
    output.write_raw("\r")
    output.erase_down()
    if texts:
        output.write_raw(commit_bytes("\n".join(texts), size.columns)[0])
    output.cursor_down(down)
    renderer._cursor_pos = Point(x=0, y=0)
    renderer._last_screen, renderer._last_size = None, size


CLEAR_ALL = "\x1b[H\x1b[2J\x1b[3J"  # the screen (tmux moves it into scrollback), then scrollback


def write_again(app: Application[None], texts: list[str]) -> None:
    """Clear the screen and scrollback, write `texts` again at the new width, and let the
    region be drawn whole below them: right wherever the terminal had put anything."""
    renderer, output, size = app.renderer, app.output, app.output.get_size()
    output.write_raw(CLEAR_ALL)
    if texts:
        output.write_raw(commit_bytes("\n".join(texts), size.columns)[0])
    renderer._cursor_pos = Point(x=0, y=0)
    renderer._last_screen, renderer._last_size = None, size


def fit_region(app: Application[None], anchor: Keeper | None = None) -> None:
    """Before each frame (after a width change not yet announced by the resize signal is
    re-laid, ui/screen/commits.py): the region is exactly as tall as its content, never padded with
    blank rows below the prompt (prompt-toolkit pads to the screen's bottom, never shrinks).
    Kept on the screen's last rows (`anchor`), it stays there as it shrinks or grows."""
    renderer, size, output = app.renderer, app.output.get_size(), app.output
    renderer._min_available_height = 0
    last = renderer._last_screen
    if last is None or renderer._last_size != size:
        if anchor is not None:
            anchor.filler = 0  # drawn anew from where the cursor is: rows it no longer knows
        return
    want = app.layout.container.preferred_height(size.columns, size.rows).preferred
    if isinstance(output, FramedOutput) and want == last.height and not output._buffer:
        output.rows_exist = True  # a frame drawn over itself: no row is added
    if want > last.height and anchor is not None:
        anchor.make_room(app, want - last.height)  # the rows it grows by, blank ones first
    if want >= last.height:
        return
    cursor = renderer._cursor_pos
    if want > cursor.y:
        output.cursor_down(want - cursor.y)
    else:
        output.cursor_up(cursor.y - want)
    output.write_raw("\r")
    output.erase_down()
    renderer._cursor_pos = Point(x=0, y=want)
    if anchor is not None and anchor.shrunk(app, last.height, want):
        renderer._cursor_pos = Point(x=0, y=want - 1)  # the screen moved down under it
    for y in range(want, last.height):
        last.data_buffer.pop(y, None)
        last.zero_width_escapes.pop(y, None)
    last.height = want


def commit_bytes(text: str, columns: int) -> tuple[str, int]:
    """`text` written from the region's top, each row erased first; the bytes and rows taken."""
    out, rows = [], 0
    for line in text.split("\n"):
        used = cells(line)
        rows += rows_of(used, columns)
        # a row filled to the last column leaves the cursor there: erasing would cut that cell
        rest = ERASE_REST if used % max(columns, 1) else ""
        out.append(ERASE_LINE + line + rest + NEXT_LINE)
    return "".join(out), rows


def open_rows(cursor: Point, height: int, rows: int) -> str:
    """Bytes that open `rows` blank rows right above a region of `height` rows, the region kept
    as it is below them, the cursor left at the first of them.

    From the region's last row, newlines scroll the screen up (or step into blank rows below
    it); either way the region's top is then `height - 1 + rows` rows above the cursor. There,
    inserting `rows` lines pushes the region down over the blank rows just made."""
    down = height - 1 - cursor.y
    return (
        (f"\x1b[{down}B" if down > 0 else "")
        + "\r"
        + "\n" * rows
        + f"\x1b[{height - 1 + rows}A"
        + f"\x1b[{rows}L"
    )


def shift_up(screen: Screen, rows: int) -> Screen:
    """The last frame as it now stands on the terminal: `rows` lower, its top overwritten."""
    shifted = Screen()
    for y in range(max(screen.height - rows, 0)):
        if y + rows in screen.data_buffer:
            shifted.data_buffer[y] = screen.data_buffer[y + rows]
        if y + rows in screen.zero_width_escapes:
            shifted.zero_width_escapes[y] = screen.zero_width_escapes[y + rows]
    shifted.height = max(screen.height - rows, 0)
    return shifted


class SteadyWindow(Window):
    """A Window whose last row is styled like the others: prompt-toolkit marks it
    `class:last-line`, so each new line of a streamed reply changed the style of the row above
    and the diff sent both rows again."""

    def _apply_style(
        self, new_screen: Screen, write_position: WritePosition, parent_style: str
    ) -> None:
        new_screen.fill_area(write_position, style=f"{parent_style} {to_str(self.style)}")
