"""Synchronized output: each frame the screen writes is bracketed by `CSI ? 2026 h` … `l`, so a
terminal that supports it shows the frame whole (no flicker); others ignore the brackets.

A commit to scrollback (erase the bottom region, print, draw it again) is held in one bracket.
`AGENT_NO_SYNC_OUTPUT=1` leaves the brackets out. Each frame that draws something ends with a
width probe (ui/screen/width_probe.py), and is laid out for one terminal size from its first byte to
its last (prompt-toolkit asks for the size again while it renders).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import Output
from prompt_toolkit.output.vt100 import Vt100_Output

from agent_cli.ui.screen.width_probe import ANCHOR, NOTHING, RENDERER, RegionRows, WidthProbes

BEGIN, END = "\x1b[?2026h", "\x1b[?2026l"
# what prompt-toolkit writes around every frame, changed or not: alone, they net to nothing
_STATE = ("\x1b[?25l", "\x1b[?25h", "\x1b[?7l", "\x1b[?7h", "\x1b[0m", "\x1b[?12l", "\x1b[?12h")


_NEWLINES = re.compile("(?:\r\n)+")


def _nothing_drawn(parts: list[str]) -> bool:
    text = "".join(parts)
    for sequence in _STATE:
        text = text.replace(sequence, "")
    return not text


class FramedOutput(Vt100_Output):
    """prompt-toolkit's VT100 output, one synchronized frame per flush (or per held commit)."""

    held = False
    rows_exist = False  # this frame only moves over rows already drawn (ui/reflow.fit_region)
    laid_out: Callable[[], int] | None = None  # the columns the renderer drew this frame for
    region: Callable[[], RegionRows] | None = None  # the region as this frame left it
    # each question of ours is owed an answer like prompt-toolkit's own, which it waits for
    # before it gives the terminal back (an answer read by the shell would be typed into it)
    awaits_answer: Callable[[], None] | None = None
    erasing = False  # an erased region is not a frame: nothing to probe
    leaving = False  # the last frames: an answer would reach the shell, asked for nothing
    _frame_size: Size | None = None
    size_held = False  # inside `fixed_size`: flushes do not end it

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probes = WidthProbes()

    def flush(self) -> None:
        if self._buffer and not self.held and _nothing_drawn(self._buffer):
            self._buffer.clear()  # a frame where nothing changed: not a byte
        if self.rows_exist and self._buffer:  # one cursor-down, not a newline per row
            text = _NEWLINES.sub(lambda m: f"\r\x1b[{len(m.group()) // 2}B", "".join(self._buffer))
            self._buffer[:] = [text]
        self.rows_exist = False
        if self._buffer and not self.held:
            self._buffer.insert(0, BEGIN)
            self._buffer.append(self._probe() + END)
        super().flush()
        if not (self.held or self.size_held):
            self._frame_size = None

    def fix_size(self) -> None:
        """The size the terminal says now holds until this frame is written: it can change
        between two questions, and a frame laid out for one size and drawn for another
        would be drawn in neither."""
        if self._frame_size is None:
            self._frame_size = super().get_size()

    def get_size(self) -> Size:
        return self._frame_size or super().get_size()

    def _probe(self) -> str:
        if self.erasing or self.leaving:
            return ""
        columns = self.laid_out() if self.laid_out is not None else self.get_size().columns
        probe = self.probes.probe(columns, self.region() if self.region is not None else NOTHING)
        if probe and self.awaits_answer is not None:
            self.awaits_answer()
        return probe

    def ask_for_cpr(self) -> None:
        """prompt-toolkit's question (it awaits the answer itself)."""
        self.ask(RENDERER)

    def ask_for_anchor(self) -> None:
        if self.awaits_answer is not None:
            self.awaits_answer()
        self.ask(ANCHOR)

    def ask(self, by: str) -> None:
        if self._buffer:
            self.flush()  # what is pending is a frame, and its probe is answered first
        self.probes.asked(by)
        self.write_raw("\x1b[6n")
        super().flush()  # a question, not a frame: no probe of its own

    def erase_down(self) -> None:
        # tmux (scroll-on-clear) copies the whole screen into scrollback when the erase starts
        # at its top-left cell: erase this row's rest, then from the next cell on
        self.write_raw("\x1b[K\x1b7\x1b[C\x1b[J\x1b8")

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Everything written inside is one frame."""
        self.write_raw(BEGIN)
        self.held = True
        super().flush()
        try:
            yield
        finally:
            self.held = False
            self.write_raw(self._probe() + END)
            super().flush()
            if not self.size_held:
                self._frame_size = None


def screen_output() -> Output:
    """Framed output on a real terminal; whatever the session has otherwise (tests, pipes)."""
    output = get_app_session().output
    if os.environ.get("AGENT_NO_SYNC_OUTPUT") or not isinstance(output, Vt100_Output):
        return output
    if not sys.stdout.isatty():
        return output
    return FramedOutput.from_pty(sys.stdout, term=output.term)


def fix_size(output: Output) -> None:
    """The size holds until the frame is written (FramedOutput.fix_size)."""
    if isinstance(output, FramedOutput):
        output.fix_size()


@contextmanager
def fixed_size(output: Output) -> Iterator[None]:
    """The size holds for everything written inside, however many flushes that takes."""
    if not isinstance(output, FramedOutput) or output._frame_size is not None:
        yield
        return
    output.fix_size()
    output.size_held = True
    try:
        yield
    finally:
        output.size_held = False
        output._frame_size = None


@contextmanager
def one_frame(output: Output) -> Iterator[None]:
    if isinstance(output, FramedOutput):
        with output.hold():
            yield
    else:
        yield


def log_frame(app: Application[None]) -> None:
    """Diagnostics (AGENT_FRAME_LOG): the rows the region's content takes in each frame.
    prompt-toolkit pads the region down to the bottom of an empty screen with blank rows:
    those never reach scrollback, so they are not counted."""
    size = app.output.get_size()
    rows = app.layout.container.preferred_height(size.columns, size.rows).preferred
    with Path(os.environ["AGENT_FRAME_LOG"]).open("a", encoding="utf-8") as log:
        log.write(f"{rows} {size.rows} {size.columns}\n")
