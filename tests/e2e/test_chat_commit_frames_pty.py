"""A finished block moves from the live area to scrollback in one frame (issue 14): commits are
written a moment after they are made (blocks that finish together share one frame), and the
screen keeps showing the block where it was until then, never a frame with it in neither place.
The terminal's output is fed to the emulator one synchronized frame at a time and each frame is
looked at, so a frame that drops a block is seen however quickly the next one follows."""

from __future__ import annotations

import time
from pathlib import Path

import pexpect
import pytest

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

END = b"\x1b[?2026l"
MARKERS = ("FIRST-END", "SECOND-END", "THIRD-END", "LAST-END")
REPLY = (
    "The first paragraph FIRST-END.\n\n- a list item SECOND-END\n\n"
    "A third paragraph THIRD-END.\n\nAnd the last words LAST-END."
)


def frames_until_idle(term: ChatTerm, timeout: float = 30) -> list[str]:
    """The screen as each frame left it, until the turn is over."""
    screens: list[str] = []
    pending = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pending += term.child.read_nonblocking(65536, timeout=0.05)
        except pexpect.TIMEOUT:
            if screens and "working…" not in screens[-1] and all(m in screens[-1] for m in MARKERS):
                return screens
            continue
        *whole, pending = pending.split(END)
        for frame in whole:
            term.stream.feed(frame + END)
            screens.append(term.text())
    raise AssertionError(f"the turn never ended; the screen shows:\n{term.text()}")


@pytest.mark.parametrize("columns", [80, 140])
def test_a_finished_block_is_in_view_in_every_frame(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, columns: int
):
    fake_model.script.text(REPLY, chunks=16, pace=0.04)
    term = ChatTerm(fake_env, tmp_path, columns=columns, lines=24)
    try:
        term.wait_for("you>")
        term.type("go")
        screens = frames_until_idle(term)
    finally:
        term.close()
    for marker in MARKERS:
        shown = [marker in screen for screen in screens]
        first = shown.index(True)
        assert all(shown[first:]), f"{marker} left the screen in frame {shown.index(False, first)}"
