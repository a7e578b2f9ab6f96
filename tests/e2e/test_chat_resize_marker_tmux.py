"""A change of columns keeps what the terminal held (issue 37, item 4): a line the shell printed
before `agent chat` started is still in tmux's scrollback after ten column changes during a
streamed reply and ten widenings once it is over (see MID_REPLY and IDLE), at 80x24 and 140x45;
the conversation is never written a second time (each reply line once, one copy of the panel,
no blank run amid it). tmux re-wraps its rows on each change, as most terminals do, and tells
the program the new size up to 250 ms late."""

from __future__ import annotations

import shutil
import time
from functools import partial
from pathlib import Path

import pytest

from tests.e2e.test_chat_resize_tmux import (
    LINES,
    REPLY,
    SMALL,
    TODOS,
    WIDE,
    Tmux,
    check,
    residue,
    scrollback_joined,
    settled,
)
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
    pytest.mark.timeout(240),  # twenty resizes, each waited for
]
MARKER = "MARKER-BEFORE-CHAT-7f3e"
LOOK_S = 0.3
# While a reply streams, each step at least half the width before it: the region (at most half
# the rows) still fits on the screen once the terminal has split each of its rows in two, and
# the rows a narrowing frees, kept blank at its top, are filled by the reply's next blocks. At
# 140x45 its 20 rows are nearer half the screen: a narrowing leaves about 18 blank (ui/screen/
# anchor.py: `Gap`) and the next one re-wraps the rest into 40 under them, more than the screen
# has; tmux pushes the blank ones into scrollback (runs of 8 to 14 amid the reply, unseen
# before issue 56), so the session is written again into a cleared scrollback, the shell's lines
# with it (README's trade-off; tests/e2e/test_chat_resize_midturn_tmux.py). There they widen.
MID_REPLY = {
    WIDE: tuple(range(145, 195, 5)),
    SMALL: (60, 80, 40, 70, 50, 80, 45, 65, 55, 80),
}
# Between turns the rows a re-lay frees go under the region (ui/screen/commits.py: `_down`), and
# the next narrowing re-wraps the region into more rows than the screen has above them: the
# session is written again. Left above it, as before issue 56, they were pushed into scrollback
# unseen instead (35 blank rows after the reply at 80x24, 98 at 140x45). Widenings keep them.
IDLE = {WIDE: tuple(range(195, 245, 5)), SMALL: tuple(range(85, 135, 5))}


def resize(tmux: Tmux, columns: int) -> None:
    """A person changes the width, then looks: tmux tells the program of a change that follows
    another within 250 ms only once that time is up, and frames drawn meanwhile land at a width
    they were not laid out for (tests/e2e/test_chat_resize_tmux.py tries that case)."""
    tmux.width(columns)
    time.sleep(LOOK_S)


def reply_lines_seen(tmux: Tmux) -> int:
    return tmux.scrollback().count(" L0")


def the_reply_is_over(tmux: Tmux) -> bool:
    return f"L{LINES:03d}" in tmux.scrollback() and "working" not in tmux.screen()


def went_on(tmux: Tmux, seen: int) -> bool:
    """More reply lines reached scrollback than `seen`, or the reply is over."""
    return reply_lines_seen(tmux) > seen or the_reply_is_over(tmux)


@pytest.mark.parametrize("size", [SMALL, WIDE], ids=["80x24", "140x45"])
def test_what_the_shell_printed_survives_ten_column_changes_mid_reply_and_idle(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, size: tuple[int, int]
):
    fake_model.script.tool_use("todo_write", todos=TODOS)
    fake_model.script.text(REPLY, chunks=120, pace=0.1)
    workspace = tmp_path / "project"
    workspace.mkdir()
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, size, before=f"echo {MARKER} && ")
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        assert MARKER in tmux.scrollback()
        tmux.run("send-keys", "plan and explain", "Enter")
        wait_until(lambda: "L003" in tmux.scrollback(), timeout=60, what="the stream")
        mid_reply = 0
        for columns in MID_REPLY[size]:
            seen = reply_lines_seen(tmux)
            resize(tmux, columns)
            if not the_reply_is_over(tmux):
                mid_reply += 1
                wait_until(partial(went_on, tmux, seen), timeout=30, what="the reply going on")
        assert mid_reply >= 8, f"only {mid_reply} of the changes came during the reply"
        wait_until(lambda: the_reply_is_over(tmux), timeout=60, what="the reply's end")
        for columns in IDLE[size]:
            resize(tmux, columns)
            settled(tmux, columns)
        scrollback = settled(tmux, IDLE[size][-1])
        joined = scrollback_joined(tmux)
    finally:
        tmux.close()
    assert scrollback.count(MARKER) == 1, f"the marker x{scrollback.count(MARKER)}"
    check(scrollback)
    end = next(n for n, line in enumerate(joined) if f"L{LINES:03d} " in line)
    assert residue(joined, end) == {"border rows": 0, "blank run": 1}, "\n".join(joined)
