"""Resizes during a slow streamed reply (issue 56): 140 -> 100 -> 80 -> 140 at 140x45 and 80 -> 60
-> 40 -> 80 at 80x24, twice, 3 s apart, in colour, while the reply streams. The committed reply
had blank lines inside its code blocks and a cut piece of the side panel stayed in scrollback.
Afterwards each line of each code block is in scrollback once, right under the one before, and
the panel's top border is there once (the live panel's).

The rows a re-lay frees were left blank between the conversation and the live area, and the
next commit was written under them: 19-35 blank rows in a row in scrollback.

Under half the columns (80 -> 36 at 80x24, 140x45 -> 60x24), tmux re-wraps each full-width row
of the live area into three before the program learns of the resize: more rows than the screen
has, so the live area's top (the reply's tail, pieces of the panel) went into scrollback, where
no erase reaches (ui/screen/commits.py: `_pushed`). Afterwards, in the whole scrollback with
re-wrapped lines joined (`capture-pane -J`), each part and code line of the reply is there once,
the code blocks have no blank row inside, no piece of the panel is above the live area, and no
more than one blank row follows another after the last re-lay's block.

A second narrowing before commits filled the blank rows a first one left at the live area's top
pushed some of them into scrollback (runs of 5 to 14 blank rows at 140x45: 140 -> 100 -> 80); each
round also changes the rows alone (taller and shorter). The whole scrollback, from its first
line to the reply's last, has no blank run of more than one row and no row of a panel."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.e2e.test_chat_resize_tmux import TODOS, Tmux, residue, scrollback_joined, settled
from tests.e2e.test_chat_shrink_tmux import blank_run
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
    pytest.mark.timeout(240),
]
LOOK_S = 1.5  # a person's quick pace between two changes of width
BLOCKS, CODE = 8, 6
REPLY = "\n\n".join(
    f"Part {b} of the answer, a paragraph before its code.\n\n```python\n"
    + "\n".join(f"c{b}_{n} = {n}  # line {n}" for n in range(1, CODE + 1))
    + "\n```"
    for b in range(1, BLOCKS + 1)
)


def streamed_part(scrollback: str) -> int:
    return max(b for b in range(1, BLOCKS + 1) if f"Part {b} " in scrollback)


def code_rows(scrollback: list[str], block: int) -> list[int]:
    return [
        at
        for n in range(1, CODE + 1)
        for at, line in enumerate(scrollback)
        if f"c{block}_{n} = {n} " in line
    ]


def committed(tmux: Tmux) -> bool:
    """The reply's last line is in scrollback, no longer beside the panel (the live area keeps
    a finished block drawn until its commit is written), and the turn is over."""
    last = [line for line in tmux.scrollback().split("\n") if f"c{BLOCKS}_{CODE} = " in line]
    return bool(last) and "│" not in last[-1] and "working" not in tmux.screen()


@pytest.mark.parametrize(
    ("size", "widths"),
    [
        ((140, 45), (100, 80, 140, (140, 32), (140, 45))),
        ((80, 24), (60, 40, 80, (80, 16), (80, 24))),
        # under half the columns tmux re-wraps the live area into more rows than the screen has
        ((80, 24), ((36, 24), (80, 24), (140, 45), (60, 24), (140, 45))),
    ],
    ids=["140x45", "80x24", "80x24-under-half-then-140x45-under-half"],
)
def test_resizes_mid_reply_leave_code_blocks_whole_and_no_panel_behind(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    tmp_path: Path,
    size: tuple[int, int],
    widths: tuple[int | tuple[int, int], ...],
):
    fake_env.pop("NO_COLOR", None)
    fake_model.script.tool_use("todo_write", todos=TODOS)
    fake_model.script.text(REPLY, chunks=160, pace=0.12)
    workspace = tmp_path / "project"
    workspace.mkdir()
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, size)
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        tmux.run("send-keys", "plan and explain", "Enter")
        wait_until(lambda: "c1_1 = 1" in tmux.scrollback(), timeout=60, what="the stream")
        for width in widths:
            columns, tall = width if isinstance(width, tuple) else (width, None)
            seen = tmux.scrollback().count("# line")
            streaming = streamed_part(tmux.scrollback())
            tmux.width(columns, tall)

            def streamed_on(seen: int = seen) -> bool:
                return (
                    tmux.scrollback().count("# line") > seen + 3 or "working" not in tmux.screen()
                )

            wait_until(streamed_on, timeout=30, what="more of the reply")
            mid_reply = f"c{BLOCKS}_{CODE} = " not in tmux.scrollback()
            time.sleep(LOOK_S)
        assert mid_reply, "the reply ended before the last resize: this tested nothing mid-turn"
        wait_until(lambda: committed(tmux), timeout=60, what="the reply's end, committed")
        settled(tmux, columns)
        scrollback = scrollback_joined(tmux)  # a re-wrapped line is one
    finally:
        tmux.close()
    shown = "\n".join(scrollback)
    end = max(code_rows(scrollback, BLOCKS))
    start = next(n for n, line in enumerate(scrollback) if f"Part {streaming} " in line)
    assert blank_run(scrollback[start:end]) <= 1, shown  # committed after the last re-lay
    # no piece of the panel above the live area (the reply has no `│` of its own)
    assert residue(scrollback, end, "╭╮╰╯│") == {"border rows": 0, "blank run": 1}, shown
    for block in range(1, BLOCKS + 1):
        assert shown.count(f"Part {block} of the answer") == 1, f"part {block}\n{shown}"
        rows = code_rows(scrollback, block)
        assert len(rows) == CODE, f"block {block}: {rows}\n{shown}"
        assert rows == list(range(rows[0], rows[0] + CODE)), f"block {block}: {rows}\n{shown}"
    assert sum("─ agent " in line for line in scrollback) == 1, shown
