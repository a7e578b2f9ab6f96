"""How wide the terminal holds each row of the bottom region, and where a re-wrap puts its top.

A terminal that re-wraps its rows on a change of columns splits each row by how many cells it
holds (tmux: as wide as the row was ever drawn since it was last erased whole), keeps rows it
never wrapped as they are when it widens, and keeps the cursor on its cell. The rows from the
region's top to the cursor after a re-wrap are therefore known from each row's width, if no row
ever holds more cells than it shows: prompt-toolkit trims a row that got shorter by erasing its
end, which tmux does not count, so such a row is erased whole and drawn again
(`clearing_shrunk_rows`). The region's top is then found again after any change of columns and
erased alone: nothing above it (the conversation, what the shell printed before) is touched.
Imports only prompt_toolkit: the screen is drawn before anything heavy is loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import prompt_toolkit.renderer as pt_renderer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.layout.screen import Char, Screen
from prompt_toolkit.renderer import Renderer

from agent_cli.ui.screen.frames import FramedOutput
from agent_cli.ui.screen.reflow import rows_of
from agent_cli.ui.screen.width_probe import NOTHING, RegionRows

HasStyle = Mapping[str, bool]
ERASE_WHOLE = "\x1b[0m\x1b[2K"  # default colours first: tmux keeps a row erased in a colour


def row_width(row: Mapping[int, Char], columns: int, has_style: HasStyle) -> int:
    """Cells prompt-toolkit writes on a row: up to its last cell that is not an unstyled space
    (its own rule), never past the last column."""
    used = [x for x, cell in row.items() if cell.char != " " or has_style[cell.style]]
    if not used:
        return 0
    last = min(max(used), columns - 1)
    cell = row.get(last)
    return min(last + max(cell.width if cell is not None else 1, 1), columns)


def region_of(renderer: Renderer, columns: int) -> RegionRows:
    """The region as the renderer last drew it (NOTHING once erased)."""
    screen, has_style = renderer._last_screen, renderer._style_string_has_style
    if screen is None or has_style is None:
        return NOTHING
    cursor = renderer._cursor_pos
    rows = screen.data_buffer
    widths = tuple(
        row_width(rows[y], columns, has_style) if y in rows else 0 for y in range(cursor.y + 1)
    )
    return RegionRows(widths, (cursor.y, cursor.x))


def rows_above(region: RegionRows, columns: int, rewraps: bool) -> int:
    """Rows between the region's top and the cursor once the terminal is `columns` wide: each
    row split by its cells if the terminal re-wraps rows (else cut: one row each); the cursor
    on the piece of its row that holds its cell (past the row's end: on its last piece)."""
    row, column = region.cursor
    if not rewraps:
        return row
    widths = list(region.widths) + [0] * (row + 1 - len(region.widths))
    above = sum(rows_of(width, columns) for width in widths[:row])
    own = widths[row]
    return above + (column // max(columns, 1) if column < own else rows_of(own, columns) - 1)


Diff = Callable[..., tuple[Point, str | None]]


def clearing_shrunk_rows(diff: Diff) -> Diff:
    """prompt-toolkit's screen diff, with each row that gets shorter erased whole first and
    drawn again from its first cell (only on framed output: the chat screen's)."""

    def drawn(*args: Any, **kwargs: Any) -> tuple[Point, str | None]:
        if len(args) != 8 or not isinstance(args[1], FramedOutput):
            return diff(*args, **kwargs)
        app, output, screen, pos, depth, previous, style, done = args
        size, has_style = kwargs.get("size"), kwargs.get("style_string_has_style")
        if size is None or has_style is None or kwargs.get("previous_width") != size.columns:
            return diff(*args, **kwargs)
        if previous is not None and not done:
            shrunk = shrunk_rows(screen, previous, size.columns, size.rows, has_style)
            if shrunk:
                pos, style = erase_whole(output, previous, pos, shrunk), None
        return diff(app, output, screen, pos, depth, previous, style, done, **kwargs)

    drawn.clears_shrunk_rows = True  # type: ignore[attr-defined]
    return drawn


def shrunk_rows(
    screen: Screen, previous: Screen, columns: int, rows: int, has_style: HasStyle
) -> list[int]:
    old, new = previous.data_buffer, screen.data_buffer
    return [
        y
        for y in range(min(previous.height, rows))
        if y in old
        and row_width(new.get(y, {}), columns, has_style) < row_width(old[y], columns, has_style)
    ]


def erase_whole(output: FramedOutput, previous: Screen, pos: Point, rows: list[int]) -> Point:
    """Erase each of `rows` whole (the cursor moves only over rows drawn already); the last
    frame forgets them, so the diff draws them again. Where the cursor is left."""
    for y in rows:
        if y < pos.y:
            output.cursor_up(pos.y - y)
        elif y > pos.y:
            output.cursor_down(y - pos.y)
        output.write_raw("\r" + ERASE_WHOLE)
        pos = Point(x=0, y=y)
        previous.data_buffer.pop(y, None)
        previous.zero_width_escapes.pop(y, None)
    return pos


def install() -> None:
    """Route prompt-toolkit's renderer through `clearing_shrunk_rows` (once)."""
    diff = pt_renderer._output_screen_diff
    if not getattr(diff, "clears_shrunk_rows", False):
        setattr(pt_renderer, "_output_screen_diff", clearing_shrunk_rows(diff))  # noqa: B010
