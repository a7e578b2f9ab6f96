"""/undo in the real `agent chat`, in a pseudo-terminal: the question lists the files, "n"
keeps everything, "y" takes code and conversation back to before the turn."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.checkpoint_support import (
    make_workspace,
    script_the_turn,
    tree_bytes,
    user_git_state,
)
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic


def test_undo_asks_then_takes_code_and_conversation_back(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=True)
    before_files, before_git = tree_bytes(workspace), user_git_state(workspace)
    term = ChatTerm(fake_env, workspace, "--permission-mode", "bypass")
    try:
        term.wait_for("you>")
        script_the_turn(fake_model)
        term.type("change things")
        # the turn's last lines reach scrollback in the frame after the status bar says so
        screen = term.wait_for(
            lambda t: "All three done." in t and "working…" not in t and "◇ 4 files changed" in t
        )
        assert tree_bytes(workspace) != before_files
        assert "◇ 4 files changed: a.txt, b.py, c.txt, d.txt" in screen
        term.wait_for("files changed 4")  # the panel's usage section

        term.type("/undo")
        # the listing is committed to scrollback in the next frame (commits are coalesced)
        screen = term.wait_for(lambda t: "Undo the last turn?" in t and "D d.txt" in t)
        for line in ("A a.txt", "M b.py", "A c.txt", "D d.txt"):
            assert line in screen
        term.send("n")
        term.wait_for("Nothing undone.")
        assert (workspace / "a.txt").exists()

        term.type("/undo")
        term.wait_for(lambda t: t.count("Undo turn 1") == 2 and "Undo the last turn?" in t)
        term.send("y")
        term.wait_for("conversation: new session")
        assert tree_bytes(workspace) == before_files
        assert user_git_state(workspace) == before_git  # agent folders not in git status either

        term.wait_for(lambda t: term.prompt_line() == "you> change things")
        term.send("\x15")  # Ctrl-U: the undone prompt, given back to the input box, cleared
        fake_model.script.text("a fresh start")
        term.type("try again")
        term.wait_for("a fresh start")
        request = fake_model.bodies()[-1]
        assert [m["content"][0]["text"] for m in request["messages"]] == ["try again"]
    finally:
        term.close()
