"""Resizes in tmux (issue 14): tmux re-wraps its rows when the window narrows, as most terminals
do (pyte does not), so a live region erased by the rows prompt-toolkit drew leaves the top of
its reflowed copy in scrollback. 140 -> 100 -> 80 -> 140 columns at 140x45 and 80 -> 60 -> 40
-> 80 at 80x24, while idle and during a streamed reply; the whole scrollback (`capture-pane -S
-`) must hold each reply line once and one copy of the panel."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
TODOS = [
    {
        "content": f"Step {n:02d} of the plan",
        "active_form": f"Doing {n}",
        "status": "in_progress" if n == 3 else "pending",
    }
    for n in range(1, 13)
]
LINES = 60
REPLY = "\n\n".join(
    f"- L{n:03d} point number {n} of the answer, long enough to wrap at eighty columns"
    for n in range(1, LINES + 1)
)
# sections of a tight list whose items wrap at 80 columns: the live area's rows get shorter in
# place as it streams (a terminal keeps such a row as wide as it ever was), and a section is
# committed whole
WRAPPING = "\n\n".join(
    f"## Part {part}\n\n"
    + "\n".join(
        f"- L{n:03d} item {n} of the list: the loop reads the event, renders it and commits"
        " the finished block to scrollback"
        for n in range(part * 6 - 5, part * 6 + 1)
    )
    for part in range(1, LINES // 6 + 1)
)


class Tmux:
    def __init__(
        self,
        socket: Path,
        env: dict[str, str],
        workspace: Path,
        size: tuple[int, int],
        before: str = "",  # a shell command run before `agent chat`, in the same pane
        flags: str = "--permission-mode bypass",
    ) -> None:
        self.socket, self.frames = str(socket), socket.parent / "frames.log"
        self.rows = size[1]
        env = {
            **env,
            "PYTHONPATH": str(REPO),
            "TERM": "xterm-256color",
            "AGENT_FRAME_LOG": str(self.frames),
        }
        names = (
            "PYTHONPATH",
            "TERM",
            "HOME",
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            "AGENT_FRAME_LOG",
        )
        exports = " ".join(f"{k}={shlex.quote(env[k])}" for k in names)
        command = (
            f"cd {shlex.quote(str(workspace))} && {before}env {exports} {sys.executable} "
            f"-m agent_cli chat {flags}"
        )
        self.run(
            "-f", "/dev/null", "new-session", "-d", "-x", str(size[0]), "-y", str(size[1]), command
        )
        self.run("set-option", "-g", "history-limit", "10000")

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-S", self.socket, *args], capture_output=True, text=True, check=False
        ).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p")

    def scrollback(self) -> str:
        return self.run("capture-pane", "-p", "-S", "-")

    def width(self, columns: int, rows: int | None = None) -> None:
        """Resize, then wait for a frame drawn at the new size (a person resizes once, then
        looks; two resizes before a frame are one resize to the program)."""
        self.rows = rows or self.rows
        self.run("resize-window", "-x", str(columns), "-y", str(self.rows))
        wait_until(
            lambda: self.last_frame() == (self.rows, columns),
            timeout=15,
            what=f"a frame at {columns}x{self.rows}",
        )

    def last_frame(self) -> tuple[int, int]:
        """The (rows, columns) of the last frame drawn (ui/screen/frames.py: `log_frame`)."""
        lines = self.frames.read_text().split("\n") if self.frames.exists() else []
        whole = [words for words in map(str.split, lines) if len(words) == 3]
        return (int(whole[-1][1]), int(whole[-1][2])) if whole else (0, 0)

    def close(self) -> None:
        self.run("kill-server")


def settled(tmux: Tmux, columns: int) -> str:
    """Until the prompt is drawn at the new width and nothing moves for a moment; the whole
    scrollback then (a capture taken while tmux had read only part of a frame would show the
    region half drawn, which no person scrolling back later sees)."""
    seen: list[str] = []

    def same_twice() -> bool:  # two captures in a row agree: no frame in between
        first = tmux.scrollback()
        seen[:] = [first]
        return first == tmux.scrollback() and "you>" in tmux.screen()

    wait_until(same_twice, timeout=15, what=f"a settled screen at {columns} columns")
    return seen[0]


def scrollback_joined(tmux: Tmux) -> list[str]:
    """The whole scrollback, each line the terminal re-wrapped joined again (`-J`)."""
    return tmux.run("capture-pane", "-p", "-J", "-S", "-").rstrip("\n").split("\n")


def residue(lines: list[str], end: int, border: str = "╭╮╰╯") -> dict[str, int]:
    """What a resize or Ctrl-L left among the committed lines `lines[:end + 1]`: rows with a
    panel's `border` (its corners: a tool's preview has a gutter of `│`), and the longest blank
    run after the first line that is not blank (the conversation's own runs are one row)."""
    first = next((n for n, line in enumerate(lines) if line.strip()), 0)
    run = most = 0
    for line in lines[first : end + 1]:
        run = run + 1 if not line.strip() else 0
        most = max(most, run)
    rows = sum(bool(set(line) & set(border)) for line in lines[: end + 1])
    return {"border rows": rows, "blank run": most}


def streamed_on(tmux: Tmux, seen: int) -> None:
    """Until a few more reply lines reached scrollback after the resize."""
    wait_until(lambda: tmux.scrollback().count(" L0") > seen + 2, timeout=30)


def check(scrollback: str) -> None:
    for n in range(1, LINES + 1):
        assert scrollback.count(f"L{n:03d} ") == 1, f"L{n:03d} x{scrollback.count(f'L{n:03d} ')}"
    panels = re.findall(r"Todos \d+/12", scrollback)
    assert len(panels) == 1, f"{len(panels)} copies of the panel in scrollback"


# tmux reflows at once but tells the program the new size up to 250 ms after the resize before:
# resizes in quick succession early in the reply land frames and commits in that gap, which the
# screen's width probes find (ui/screen/width_probe.py)
WIDE, SMALL = (140, 45), (80, 24)


@pytest.mark.parametrize(
    ("moment", "pace", "start", "size", "widths", "reply"),
    [
        pytest.param("idle", 0.05, "", WIDE, (100, 80, 140), REPLY, id="idle"),
        pytest.param("streaming", 0.12, "L005", WIDE, (100, 80, 140), REPLY, id="streaming"),
        pytest.param(
            "streaming", 0.05, "L002", WIDE, (100, 80, 140), REPLY, id="streaming-quick-resizes"
        ),
        pytest.param("idle", 0.05, "", SMALL, (60, 40, 80), REPLY, id="idle-80x24"),
        pytest.param("streaming", 0.08, "L003", SMALL, (60, 40, 80), REPLY, id="streaming-80x24"),
        pytest.param(
            "streaming",
            0.1,
            "L004",
            SMALL,
            ((60, 24), (100, 30), (80, 24)),
            WRAPPING,
            id="streaming-80x24-wrapping-list",
        ),
    ],
)
def test_resizes_leave_nothing_of_the_live_area_in_scrollback(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    tmp_path: Path,
    moment: str,
    pace: float,
    start: str,
    size: tuple[int, int],
    widths: tuple[int | tuple[int, int], ...],
    reply: str,
):
    fake_model.script.tool_use("todo_write", todos=TODOS)
    fake_model.script.text(reply, chunks=60, pace=pace)
    workspace = tmp_path / "project"
    workspace.mkdir()
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, size)
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        tmux.run("send-keys", "plan and explain", "Enter")
        if moment == "idle":
            wait_until(
                lambda: f"L{LINES:03d}" in tmux.scrollback() and "working" not in tmux.screen(),
                timeout=60,
                what="the reply",
            )
        else:
            wait_until(lambda: start in tmux.scrollback(), timeout=60, what="the stream")
        for width in widths:
            columns, rows = width if isinstance(width, tuple) else (width, None)
            tmux.width(columns, rows)
            if moment == "idle":
                settled(tmux, columns)
            else:
                streamed_on(tmux, tmux.scrollback().count(" L0"))
        wait_until(
            lambda: f"L{LINES:03d}" in tmux.scrollback() and "working" not in tmux.screen(),
            timeout=60,
            what="the reply's end",
        )
        check(settled(tmux, columns))
    finally:
        tmux.close()
