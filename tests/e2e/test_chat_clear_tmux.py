"""Ctrl-L then a turn that asks for approval (issue 56): an old spinner line and the top of an old
panel sat above the question and were then committed into the conversation. In tmux at 80x24
and 140x45, in colour (the panel draws its own border), Ctrl-L pressed while idle or while the
model thinks: the question has at most one panel above it, and afterwards the whole scrollback holds
each committed line once, no spinner line and no panel border outside the live area, no blank
run, and the reply's code block whole."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_chat_resize_tmux import Tmux, residue, scrollback_joined, settled
from tests.e2e.test_chat_shrink_tmux import FIRST
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
PANEL_TOP = "─ agent "
CODE = "\n".join(f"z{n} = {n}  # line {n} of the reply's code" for n in range(1, 7))


def spinning(lines: list[str]) -> list[str]:
    return [line for line in lines if line and line[0] in SPINNER]


@pytest.mark.parametrize("moment", ["idle", "thinking"])
@pytest.mark.parametrize("size", [(80, 24), (140, 45)], ids=["80x24", "140x45"])
@pytest.mark.usefixtures("sandbox_off")
def test_ctrl_l_leaves_nothing_that_is_committed_later(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    tmp_path: Path,
    size: tuple[int, int],
    moment: str,
):
    fake_env.pop("NO_COLOR", None)
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "abc.py").write_text("x = 1\n")
    fake_model.script.text(FIRST)
    fake_model.script.tool_use("read_file", path="abc.py", delay=1.5)  # `thinking… 1s` shown
    fake_model.script.tool_use(
        "edit_file", path="abc.py", old_string="x = 1", new_string="x = 2", delay=1.5
    )
    fake_model.script.text(f"Left it.\n\n```python\n{CODE}\n```", delay=1.5)
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, size, flags="")
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        tmux.run("send-keys", "y")  # trust the workspace
        tmux.run("send-keys", "fill the screen", "Enter")
        wait_until(lambda: "P40 of" in tmux.screen(), timeout=30, what="the first reply")
        wait_until(lambda: "working" not in tmux.screen(), timeout=30, what="the turn's end")
        settled(tmux, size[0])
        if moment == "thinking":
            tmux.run("send-keys", "change abc", "Enter")
            wait_until(lambda: "thinking…" in tmux.screen(), timeout=15, what="thinking")
        tmux.run("send-keys", "C-l")
        wait_until(lambda: "P40 of" not in tmux.screen(), timeout=15, what="a cleared screen")
        if moment == "idle":
            settled(tmux, size[0])
            tmux.run("send-keys", "change abc", "Enter")
        wait_until(lambda: "Esc / Ctrl-C: no" in tmux.screen(), timeout=30, what="the question")
        asked = tmux.screen().split("\n")
        tmux.run("send-keys", "3")
        wait_until(
            lambda: "Left it." in tmux.screen() and "working" not in tmux.screen(),
            timeout=30,
            what="the denial's reply",
        )
        scrollback = settled(tmux, size[0]).rstrip("\n").split("\n")
        joined = scrollback_joined(tmux)
    finally:
        tmux.close()
    shown = "\n".join(scrollback)
    assert sum(PANEL_TOP in line for line in asked) <= 1, "\n".join(asked)  # the live one
    assert len(spinning(asked)) <= 1, "\n".join(asked)  # the running call's own
    assert not spinning(scrollback), shown
    assert sum(PANEL_TOP in line for line in scrollback) == 1, shown  # the live panel's
    for n in range(1, 41):
        assert sum(line.startswith(f"P{n:02d} ") for line in scrollback) == 1, shown
    assert sum("✗ edit_file abc.py: denied" in line for line in scrollback) == 1, shown
    code = [n for n, line in enumerate(joined) if "of the reply's code" in line]
    assert code == list(range(code[0], code[0] + 6)), "\n".join(joined)  # none blank inside
    assert residue(joined, code[-1]) == {"border rows": 0, "blank run": 1}, "\n".join(joined)
