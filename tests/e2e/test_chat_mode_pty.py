"""Shift-Tab in the real `agent chat` (issue 37): the permission mode changes in the status bar
only; scrollback gets no `mode: …` line per key press."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

SHIFT_TAB = "\x1b[Z"


def test_shift_tab_changes_the_status_bar_and_writes_nothing(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24, scrollback=True)
    try:
        term.wait_for("mode default")
        for mode in ("accept-edits", "plan", "auto", "default"):
            term.send(SHIFT_TAB)
            term.wait_for(f"mode {mode}  ")
        lines = term.scrollback()
    finally:
        term.close()
    assert not [line for line in lines if line.startswith("mode:")], lines
