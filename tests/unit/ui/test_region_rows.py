"""The region as the terminal holds it (ui/screen/region_rows.py): where a re-wrap puts its top,
and rows that get shorter erased whole, so no row holds more cells than it shows."""

from __future__ import annotations

from typing import Any

from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.layout.screen import Char, Screen

from agent_cli.ui.screen.region_rows import clearing_shrunk_rows, rows_above
from agent_cli.ui.screen.width_probe import RegionRows
from tests.unit.ui.screen_harness import FakeTty, framed_on

# what the terminal must get to blank a whole row: default colours (tmux keeps a row erased in a
# colour), then CSI 2 K (the whole line; CSI K would leave the cells left of the cursor)
ERASE_ROW = "\x1b[0m\x1b[2K"


def test_a_re_wrap_splits_each_row_by_its_cells():
    panel_beside = RegionRows((140,) * 19 + (4,), (19, 5))  # the cursor after `you> `
    assert rows_above(panel_beside, 100, rewraps=True) == 38
    assert rows_above(panel_beside, 140, rewraps=True) == 19  # widening joins nothing
    assert rows_above(panel_beside, 100, rewraps=False) == 19  # cut: one row each
    # at 50 columns the 80- and 100-cell rows take two rows each; the cursor's row is not counted
    assert rows_above(RegionRows((80, 100, 5), (2, 0)), 50, rewraps=True) == 4
    assert rows_above(RegionRows((80, 80), (2, 0)), 40, rewraps=True) == 4  # a row not drawn


def test_the_cursor_keeps_its_cell_or_the_end_of_its_row():
    # the first row, then the cursor's cell 120 of a 250-cell row sits on its second 100-row
    assert rows_above(RegionRows((10, 250), (1, 120)), 100, rewraps=True) == 2
    assert rows_above(RegionRows((10, 250), (1, 99)), 100, rewraps=True) == 1
    assert rows_above(RegionRows((250,), (0, 251)), 100, rewraps=True) == 2  # past its end


def screen_of(*rows: str) -> Screen:
    screen = Screen()
    for y, text in enumerate(rows):
        for x, char in enumerate(text):
            screen.data_buffer[y][x] = Char(char, "")
    screen.height = len(rows)
    return screen


def draw(previous: Screen, new: Screen, cursor: Point) -> tuple[str, list[Any]]:
    """What the wrapped diff writes before prompt-toolkit's own, and what the diff was given."""
    tty = FakeTty()
    output = framed_on(tty)
    given: list[Any] = []

    def diff(*args: Any, **kwargs: Any) -> tuple[Point, str | None]:
        given.append(args)
        return args[3], None

    drawn = clearing_shrunk_rows(diff)
    has_style: dict[str, bool] = {"": False}
    size = Size(rows=24, columns=80)
    drawn(None, output, new, cursor, None, previous, "class:x", False, size=size,
          previous_width=80, style_string_has_style=has_style, full_screen=False)  # fmt: skip
    output.flush()
    return tty.getvalue(), given


def test_a_row_that_gets_shorter_is_erased_whole_and_drawn_again():
    previous = screen_of("a long first row", "second", "third row here")
    written, given = draw(previous, screen_of("a long first row", "second", "third"), Point(4, 2))
    assert "\r" + ERASE_ROW in written  # on the cursor's own row: no move
    assert "\x1b[K" not in written.split(ERASE_ROW, 1)[0]
    _, _, _, pos, _, handed, style, _ = given[0]
    assert pos == Point(0, 2)
    assert style is None
    assert 2 not in handed.data_buffer  # ... and draws it whole
    assert 0 in handed.data_buffer
    assert 1 in handed.data_buffer


def test_rows_as_long_or_longer_are_left_to_the_diff():
    previous = screen_of("one", "two")
    written, given = draw(previous, screen_of("one!", "two"), Point(0, 1))
    assert "\x1b[2K" not in written
    assert given[0][3] == Point(0, 1)


def test_the_cursor_moves_up_to_a_shorter_row_above():
    previous = screen_of("first row", "x", "y")
    written, _ = draw(previous, screen_of("first", "x", "y"), Point(3, 2))
    assert "\x1b[2A\r" + ERASE_ROW in written
