"""The region moved down to the screen's last rows (ui/screen/anchor.py): the bytes, replayed on a
terminal emulator, and the screen asking where its cursor is and moving on the answer."""

from __future__ import annotations

import asyncio

import pyte
import pytest
from prompt_toolkit.input import PipeInput

from agent_cli.ui.screen.anchor import anchor_bytes, moved_top
from agent_cli.ui.screen.live import ChatScreen
from tests.unit.ui.screen_harness import ASK, FakeTty, framed_on, questions, run_screen
from tests.waiting import until


def emulate(rows: int, lines: list[str], then: str) -> pyte.Screen:
    screen = pyte.Screen(30, rows)
    stream = pyte.Stream(screen)
    stream.feed("\r\n".join(lines))
    stream.feed(then)
    return screen


def test_the_region_and_all_above_it_move_down_over_the_blank_rows():
    # a shell line, a committed line, then a region of 3 rows (the cursor on its 2nd row, col 4)
    lines = ["$ agent chat", "New session", "reply tail", "status", "you> x"]
    moved = emulate(10, lines, anchor_bytes(top=2, height=3, rows=10, cursor=(1, 4)))
    assert [row.rstrip() for row in moved.display] == ["", "", "", "", "", *lines]
    assert (moved.cursor.y, moved.cursor.x) == (8, 4)  # the same cell of the region


def test_a_region_on_the_last_rows_is_left_alone():
    assert anchor_bytes(top=7, height=3, rows=10, cursor=(2, 0)) == ""
    assert anchor_bytes(top=8, height=3, rows=10, cursor=(2, 0)) == ""  # scrolled: no gap


def run_screen_answering(rows: list[int]) -> str:
    """Run the screen on a 24x80 terminal, answering its cursor questions with `rows` in turn
    (and its width probes as a terminal 80 columns wide would); everything it wrote."""
    tty = FakeTty()

    async def answer(screen: ChatScreen, pipe: PipeInput) -> None:
        answered, positions = 0, iter(rows)
        while not screen.anchor.anchored:
            asked = questions(tty.getvalue())
            if len(asked) == answered:
                await asyncio.sleep(0.01)
                continue
            if asked[answered]:
                pipe.send_text("\x1b[24;80R")
            else:
                row = next(positions, None)
                assert row is not None, "asked more often than expected"
                pipe.send_text(f"\x1b[{row};1R")
            answered += 1

    run_screen(framed_on(tty), answer, timeout=5)
    return tty.getvalue()


def test_the_screen_asks_once_drawn_and_moves_its_region_down(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AGENT_REFLOW", "1")
    # prompt-toolkit asks first, from the region's top; the screen asks after its first frame,
    # with the cursor on the prompt (the region's 2nd row: status bar, prompt)
    written = run_screen_answering([3, 4])
    # the region's top is row 3 (1-based: 4 - 1): 20 blank rows below its 2 rows
    assert "\x1b[H\x1b[20L\x1b[24;6H" in written
    asked = questions(written)
    assert asked.count(False) == 2  # the first answer was not taken for the screen's own
    assert asked.count(True) >= 1  # frames drawn once the terminal answered end with a probe


def test_a_terminal_that_cuts_rows_is_never_asked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AGENT_REFLOW", "0")
    tty = FakeTty()

    async def answer(screen: ChatScreen, pipe: PipeInput) -> None:
        await until(lambda: ASK in tty.getvalue(), 5, "prompt-toolkit's question")
        pipe.send_text("\x1b[3;1R")
        await until(lambda: screen.app.render_counter >= 2, 5, "a frame after it")

    run_screen(framed_on(tty), answer)
    assert questions(tty.getvalue()).count(False) == 1
    assert "L\x1b[" not in tty.getvalue()


def test_moving_the_top_inserts_or_deletes_rows_there_and_puts_the_cursor_back():
    # a region shrunk from 4 rows to 2 on the screen's last rows: rows 8-9 erased below it
    lines = ["old 1", "old 2", "old 3", "old 4", "old 5", "old 6", "status", "you> x", "", ""]
    down = emulate(10, lines, "\x1b[10;1H" + moved_top(2, "L", 9, 0))
    assert [row.rstrip() for row in down.display] == ["", "", *lines[:8]]  # no gap under it
    assert (down.cursor.y, down.cursor.x) == (9, 0)  # the region's last row
    # two rows it grows by: the blank ones at the top go first, nothing scrolls
    up = emulate(10, [row.rstrip() for row in down.display], moved_top(2, "M", 7, 4))
    assert [row.rstrip() for row in up.display] == [*lines[:8], "", ""]
    assert (up.cursor.y, up.cursor.x) == (7, 4)
