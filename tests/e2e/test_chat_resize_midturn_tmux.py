"""Resizes during a slow streamed reply (issue 56): 140 -> 100 -> 80 -> 140 at 140x45 and 80 -> 60
-> 40 -> 80 at 80x24, twice, 3 s apart, in colour, while the reply streams. The committed reply
had blank lines inside its code blocks and a cut piece of the side panel stayed in scrollback.
Afterwards each line of each code block is in scrollback once, right under the one before, and
the panel's top border is there once (the live panel's)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.e2e.test_chat_resize_tmux import TODOS, Tmux, settled
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
    pytest.mark.timeout(240),
]
LOOK_S = 3.0  # a person's pace between two changes of width
BLOCKS, CODE = 8, 6
REPLY = "\n\n".join(
    f"Part {b} of the answer, a paragraph before its code.\n\n```python\n"
    + "\n".join(f"c{b}_{n} = {n}  # line {n}" for n in range(1, CODE + 1))
    + "\n```"
    for b in range(1, BLOCKS + 1)
)


def code_rows(scrollback: list[str], block: int) -> list[int]:
    return [
        at
        for n in range(1, CODE + 1)
        for at, line in enumerate(scrollback)
        if f"c{block}_{n} = {n} " in line
    ]


@pytest.mark.parametrize(
    ("size", "widths"),
    [((140, 45), (100, 80, 140) * 2), ((80, 24), (60, 40, 80) * 2)],
    ids=["140x45", "80x24"],
)
def test_resizes_mid_reply_leave_code_blocks_whole_and_no_panel_behind(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    tmp_path: Path,
    size: tuple[int, int],
    widths: tuple[int, ...],
):
    fake_env.pop("NO_COLOR", None)
    fake_model.script.tool_use("todo_write", todos=TODOS)
    fake_model.script.text(REPLY, chunks=160, pace=0.2)
    workspace = tmp_path / "project"
    workspace.mkdir()
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, size)
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        tmux.run("send-keys", "plan and explain", "Enter")
        wait_until(lambda: "c1_1 = 1" in tmux.scrollback(), timeout=60, what="the stream")
        for columns in widths:
            seen = tmux.scrollback().count("# line")
            tmux.width(columns)

            def streamed_on(seen: int = seen) -> bool:
                return (
                    tmux.scrollback().count("# line") > seen + 3 or "working" not in tmux.screen()
                )

            wait_until(streamed_on, timeout=30, what="more of the reply")
            time.sleep(LOOK_S)
        wait_until(
            lambda: f"c{BLOCKS}_{CODE} = " in tmux.scrollback() and "working" not in tmux.screen(),
            timeout=60,
            what="the reply's end",
        )
        scrollback = settled(tmux, widths[-1]).rstrip("\n").split("\n")
    finally:
        tmux.close()
    shown = "\n".join(scrollback)
    for block in range(1, BLOCKS + 1):
        rows = code_rows(scrollback, block)
        assert len(rows) == CODE, f"block {block}: {rows}\n{shown}"
        assert rows == list(range(rows[0], rows[0] + CODE)), f"block {block}: {rows}\n{shown}"
    assert sum("─ agent " in line for line in scrollback) == 1, shown
