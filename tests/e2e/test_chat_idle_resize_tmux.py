"""Idle resizes after a conversation (issue 56): 140 -> 80 -> 140 -> 100 -> 140 at 140x45 and
80 -> 40 -> 80 -> 60 -> 80 at 80x24, a person's pace apart, no turn running. Blank rows piled up
above the live area with each resize until the visible screen above it was blank and the
conversation had been pushed into scrollback. Afterwards the conversation's last line is on
screen right above the live area, and the whole scrollback holds each committed line once with
no blank run the resizes put there.

Each series also goes to less than half the columns and back (the live area's rows re-wrap into
more than the screen has: the session is written again) and changes the rows alone, fewer and
more; in colour, so the panel draws its border: no row of it is left among the committed lines,
and the code block of each reply has no blank row inside."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_chat_resize_tmux import Tmux, residue, scrollback_joined, settled
from tests.e2e.test_chat_shrink_tmux import blank_run
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

TURNS = 3
LINES = 12
CODE = 6


def reply(turn: int) -> str:
    parts = [
        f"T{turn}L{n:02d} line {n} of reply {turn}, long enough to wrap at forty columns."
        for n in range(1, LINES + 1)
    ]
    code = "\n".join(f"k{turn}_{n} = {n}  # line {n} of its code" for n in range(1, CODE + 1))
    parts.insert(LINES // 2, f"```python\n{code}\n```")
    return "\n\n".join(parts)


@pytest.mark.parametrize(
    ("size", "widths"),
    [
        ((140, 45), (80, 140, 60, 140, (140, 30), (140, 45), 100, 140)),
        ((80, 24), (40, 80, 36, 80, (80, 16), (80, 30), 60, 80)),
    ],
    ids=["140x45", "80x24"],
)
def test_idle_resizes_keep_the_conversation_above_the_live_area(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    tmp_path: Path,
    size: tuple[int, int],
    widths: tuple[int | tuple[int, int], ...],
):
    fake_env.pop("NO_COLOR", None)
    for turn in range(1, TURNS + 1):  # the last one paced: its last paragraph is drawn live
        fake_model.script.text(reply(turn), pace=0.15 if turn == TURNS else 0.0)
    workspace = tmp_path / "project"
    workspace.mkdir()
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, size)
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        for turn in range(1, TURNS + 1):
            tmux.run("send-keys", f"question {turn}", "Enter")
            last = f"T{turn}L{LINES:02d} "

            def replied(last: str = last) -> bool:
                return last in tmux.scrollback() and "working" not in tmux.screen()

            wait_until(replied, timeout=30, what=f"reply {turn}")
        before = settled(tmux, size[0]).rstrip("\n").split("\n")
        whole = code_blocks(scrollback_joined(tmux))
        assert whole == [True] * TURNS, "\n".join(scrollback_joined(tmux))
        for width in widths:
            columns, rows = width if isinstance(width, tuple) else (width, None)
            tmux.width(columns, rows)
            settled(tmux, columns)
        scrollback = settled(tmux, columns).rstrip("\n").split("\n")
        joined = scrollback_joined(tmux)
        screen = tmux.screen().rstrip("\n").split("\n")
    finally:
        tmux.close()
    shown = "\n".join(screen)
    at = [n for n, line in enumerate(screen) if line.startswith(f"T{TURNS}L{LINES:02d} ")]
    assert at, f"the conversation's last line is not on screen:\n{shown}"
    live = next(n for n, line in enumerate(screen) if n > at[0] and line.strip())
    assert live - at[0] <= 2, f"blank rows between the conversation and the live area:\n{shown}"
    assert blank_run(scrollback) <= blank_run(before), "\n".join(scrollback)
    end = next(n for n, line in enumerate(joined) if line.startswith(f"T{TURNS}L{LINES:02d} "))
    assert residue(joined, end) == {"border rows": 0, "blank run": 1}, "\n".join(joined)
    for turn in range(1, TURNS + 1):
        for n in range(1, LINES + 1):
            line = f"T{turn}L{n:02d} "
            assert sum(row.startswith(line) for row in scrollback) == 1, "\n".join(scrollback)
    assert code_blocks(joined) == whole, "\n".join(joined)  # no blank row inside a code block


def code_blocks(lines: list[str]) -> list[bool]:
    """Whether each reply's code block is whole: its lines one right under the other."""
    rows = [[at for at, line in enumerate(lines) if f"k{turn}_" in line] for turn in range(1, 4)]
    return [len(at) == CODE and at == list(range(at[0], at[0] + CODE)) for at in rows]
