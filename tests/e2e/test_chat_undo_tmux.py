"""/undo and a conversation /rewind in the real `agent chat` under tmux (issue 37): the screen
changes by what was taken back. The whole scrollback (`capture-pane -S -`) holds each reply
line of the session once — no second copy of the conversation — and the rewound prompt is back
in the input box to edit and send again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.checkpoint_support import make_workspace
from tests.e2e.test_chat_resize_tmux import SMALL, WIDE, Tmux
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
TURNS, LINES = 3, 6


def reply(turn: int) -> str:
    return "\n\n".join(
        f"- T{turn}L{n} line {n} of reply {turn}, long enough to wrap at eighty columns in tmux"
        for n in range(1, LINES + 1)
    )


def once_each(scrollback: str) -> None:
    for turn in range(1, TURNS + 1):
        for n in range(1, LINES + 1):
            seen = scrollback.count(f"T{turn}L{n} ")
            assert seen == 1, f"T{turn}L{n} x{seen} in:\n{scrollback}"


def idle(tmux: Tmux, needle: str) -> str:
    wait_until(
        lambda: needle in tmux.scrollback() and "working" not in tmux.screen(),
        timeout=60,
        what=needle,
    )
    return tmux.scrollback()


def input_line(tmux: Tmux) -> str:
    return next(line for line in reversed(tmux.screen().splitlines()) if "you>" in line)


@pytest.mark.parametrize("size", [SMALL, WIDE], ids=["80x24", "140x45"])
def test_undo_and_rewind_draw_no_second_copy_and_give_the_prompt_back(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, size: tuple[int, int]
):
    workspace = make_workspace(tmp_path, repo=True)
    tmux = Tmux(tmp_path / "tmux.sock", fake_env, workspace, size)
    try:
        wait_until(lambda: "you>" in tmux.screen(), timeout=30, what="the prompt")
        for turn in range(1, TURNS + 1):
            fake_model.script.tool_use("write_file", path=f"t{turn}.txt", content=f"{turn}\n")
            fake_model.script.text(reply(turn))
            tmux.run("send-keys", f"prompt number {turn}", "Enter")
            idle(tmux, f"T{turn}L{LINES} ")
        once_each(tmux.scrollback())

        tmux.run("send-keys", "/undo", "Enter")
        wait_until(lambda: "Undo the last turn?" in tmux.screen(), timeout=30, what="the question")
        tmux.run("send-keys", "y")
        after_undo = idle(tmux, "conversation: new session")
        once_each(after_undo)
        assert "t3.txt" in after_undo  # what went back is said
        assert not (workspace / "t3.txt").exists()
        wait_until(lambda: "prompt number 3" in input_line(tmux), timeout=10, what="the prompt")

        tmux.run("send-keys", "C-u", "/rewind", "Enter")  # the restored prompt cleared first
        wait_until(lambda: "Which turn?" in tmux.screen(), timeout=30, what="the picker")
        tmux.run("send-keys", "2")  # [1] is the newest: turn 2, [2] turn 1
        wait_until(lambda: "con[v]ersation" in tmux.screen(), timeout=30, what="the modes")
        tmux.run("send-keys", "v")
        wait_until(lambda: tmux.scrollback().count("conversation: new session") == 2, timeout=30)
        wait_until(lambda: "prompt number 1" in input_line(tmux), timeout=10, what="the prompt")
        once_each(tmux.scrollback())
        assert (workspace / "t2.txt").exists()  # the conversation only: the code stays

        fake_model.script.text("a fresh start")
        tmux.run("send-keys", "C-u", "try again", "Enter")
        idle(tmux, "a fresh start")
        once_each(tmux.scrollback())
        request = fake_model.bodies()[-1]
        assert [m["content"][0]["text"] for m in request["messages"]] == ["try again"]
    finally:
        tmux.close()
