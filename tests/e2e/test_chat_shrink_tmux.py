"""A live area that gets shorter leaves no blank rows under the prompt (issue 37: up to 9 after
an approval, a tool's preview or a block of spinners): in tmux at 80x24 and 140x45, once the
screen is full the prompt stays on its last row, the committed lines right above the region,
and the blank rows it gave up never reach scrollback (each line there once, no blank run), not
even when the screen then gets fewer rows (issue 56: runs of 10 blank rows at 80x24 -> 80x16,
19 at 140x45 -> 140x30)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_chat_resize_tmux import Tmux
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

FIRST = "\n\n".join(f"P{n:02d} of the first reply." for n in range(1, 41))
LAST = "\n\n".join(f"Q{n:02d} of the last reply." for n in range(1, 41))


def blank_run(lines: list[str]) -> int:
    """The most blank lines in a row."""
    run = most = 0
    for line in lines:
        run = run + 1 if not line.strip() else 0
        most = max(most, run)
    return most


@pytest.mark.parametrize(("size", "diff"), [((80, 24), 4), ((140, 45), 12)])
@pytest.mark.usefixtures("sandbox_off")
def test_an_answered_approval_leaves_no_blank_rows_under_the_prompt(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    tmp_path: Path,
    size: tuple[int, int],
    diff: int,
):
    old = "".join(f"x{n} = {n}\n" for n in range(diff))
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "abc.py").write_text(old)
    fake_model.script.text(FIRST)
    fake_model.script.tool_use("read_file", path="abc.py")
    fake_model.script.tool_use(
        "edit_file", path="abc.py", old_string=old, new_string=old.replace(" = ", " == ")
    )
    fake_model.script.text("Left it.")
    fake_model.script.text(LAST)
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, size, flags="")
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        tmux.run("send-keys", "y")  # trust the workspace
        tmux.run("send-keys", "fill the screen", "Enter")
        wait_until(lambda: "P40 of" in tmux.screen(), timeout=30, what="the first reply")
        tmux.run("send-keys", "change abc", "Enter")
        wait_until(lambda: "Esc / Ctrl-C: no" in tmux.screen(), timeout=30, what="the question")
        asked = tmux.screen().rstrip("\n").split("\n")
        tmux.run("send-keys", "3")
        wait_until(
            lambda: "Left it." in tmux.screen() and "working" not in tmux.screen(),
            timeout=30,
            what="the denial's reply",
        )
        wait_until(lambda: stable(tmux), timeout=15, what="a settled screen")
        after = tmux.screen().rstrip("\n").split("\n")
        # fewer rows, then as many again: tmux pushes the screen's top rows into scrollback,
        # where the blank rows the shorter region left at the top were (issue 56)
        tmux.width(size[0], size[1] * 2 // 3)
        wait_until(lambda: stable(tmux), timeout=15, what="a settled lower screen")
        tmux.width(size[0], size[1])
        wait_until(lambda: stable(tmux), timeout=15, what="a settled screen")
        tmux.run("send-keys", "go on", "Enter")
        wait_until(lambda: "Q40 of" in tmux.screen(), timeout=30, what="the last reply")
        wait_until(lambda: stable(tmux), timeout=15, what="a settled screen")
        scrollback = tmux.scrollback().rstrip("\n").split("\n")
    finally:
        tmux.close()
    assert len(asked) == size[1]  # the screen was full when the question was asked
    assert asked[-1].startswith("you>")
    assert len(after) == size[1], after
    assert after[-1].startswith("you>"), "\n".join(after)  # the prompt stays on the last row
    below = after[next(n for n, line in enumerate(after) if "Left it." in line) :]
    assert blank_run(below) <= 1, "\n".join(after)  # the reply's own blank line, nothing more
    assert blank_run(scrollback) <= 1, "\n".join(scrollback)
    for n in range(1, 41):
        assert sum(line.startswith(f"P{n:02d} ") for line in scrollback) == 1
        assert sum(line.startswith(f"Q{n:02d} ") for line in scrollback) == 1
    assert sum("✗ edit_file abc.py: denied" in line for line in scrollback) == 1


def stable(tmux: Tmux) -> bool:
    first = tmux.screen()
    return first == tmux.screen() and "you>" in first


@pytest.mark.usefixtures("sandbox_off")
def test_leaving_takes_the_blank_rows_at_the_top_away(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    """The rows a shorter region left at the screen's top are not left for the shell's output
    to push into scrollback: after Ctrl-D the conversation moves up over them; and no answer to
    a question of the screen's reaches the shell (`^[[19;80R` was echoed under the reply)."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "abc.py").write_text("x = 1\n")
    fake_model.script.text(FIRST)
    fake_model.script.tool_use("read_file", path="abc.py")
    fake_model.script.tool_use("edit_file", path="abc.py", old_string="x = 1", new_string="x = 2")
    fake_model.script.text("Left it.")
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, (80, 24), flags="")
    tmux.run("set-option", "-g", "remain-on-exit", "on")
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        tmux.run("send-keys", "y")
        tmux.run("send-keys", "fill the screen", "Enter")
        wait_until(lambda: "P40 of" in tmux.screen(), timeout=30, what="the first reply")
        tmux.run("send-keys", "change abc", "Enter")
        wait_until(lambda: "Esc / Ctrl-C: no" in tmux.screen(), timeout=30, what="the question")
        tmux.run("send-keys", "3")
        wait_until(lambda: "Left it." in tmux.screen() and stable(tmux), timeout=30, what="idle")
        kept = tmux.screen().split("\n")
        tmux.run("send-keys", "C-d")
        dead = lambda: tmux.run("list-panes", "-F", "#{pane_dead}").strip() == "1"  # noqa: E731
        wait_until(dead, timeout=30, what="the exit")
        left = tmux.screen().split("\n")
        scrollback = tmux.scrollback().split("\n")
    finally:
        tmux.close()
    assert not kept[0].strip(), "the approval left no blank rows at the top to take away"
    above = left[: next(n for n, line in enumerate(left) if "Left it." in line)]
    assert blank_run(above) <= 1, "\n".join(left)  # the conversation moved up over them
    for n in range(1, 41):
        assert sum(line.startswith(f"P{n:02d} ") for line in scrollback) == 1, "\n".join(scrollback)
    assert not [line for line in left if "^[[" in line], "\n".join(left)  # no answer echoed
