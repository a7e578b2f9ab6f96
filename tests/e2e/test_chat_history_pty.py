"""History on resume (issue 14): a real conversation, then a session opened and quit at once;
`agent chat --continue` takes the real one and redraws its prompts, replies and tool lines;
`/sessions`, `/resume N` and `agent sessions list` name sessions by their first prompt."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import run_agent
from tests.e2e.pty_screen import CTRL_D, ChatTerm
from tests.fake_model import FakeAnthropic

FIRST = "where do retries happen?"
SECOND = "and who configures them?"
ANSWERS = ("Retries happen in **the client**.", "The settings file configures them.")


def chat_and_quit(env: dict[str, str], workspace: Path, *prompts: str) -> None:
    term = ChatTerm(env, workspace, "--permission-mode", "bypass", columns=100, lines=30)
    try:
        term.wait_for("you>")
        for n, prompt in enumerate(prompts):
            term.type(prompt)
            term.wait_for(ANSWERS[n].replace("**", ""))
            term.wait_idle()
        term.send(CTRL_D)
        term.finish()
    finally:
        term.close()


def test_continue_skips_an_empty_session_and_redraws_the_conversation(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "notes.txt").write_text("retries: 3\n")
    fake_model.script.tool_use("read_file", path="notes.txt").text(ANSWERS[0]).text(ANSWERS[1])
    chat_and_quit(fake_env, tmp_path, FIRST, SECOND)
    chat_and_quit(fake_env, tmp_path)  # opened and quit a moment later: nothing said

    term = ChatTerm(fake_env, tmp_path, "--continue", columns=100, lines=40, scrollback=True)
    try:
        screen = term.wait_for("Resumed session")
        history = "\n".join(term.scrollback())
        assert f"you> {FIRST}" in history
        assert f"you> {SECOND}" in history
        assert "Retries happen in the client." in history  # the reply as rendered markdown
        assert "The settings file configures them." in history
        assert "read_file notes.txt" in history  # the tool call's line
        assert history.index(FIRST) < history.index("Retries happen") < history.index(SECOND)
        assert "ctx -" not in screen  # the restored context figure is in the status bar

        term.type("/sessions")
        listed = term.wait_for("/resume N")
        assert FIRST in listed
        assert listed.count(" msgs ") == 1  # the empty session is not offered
        assert "← this session" in listed  # the resumed one
        term.type("/resume 1")
        term.wait_for(lambda t: t.count("Resumed session") >= 2)
    finally:
        term.close()

    listing = run_agent(fake_env, tmp_path, "sessions", "list").stdout
    assert FIRST in listing


def test_resume_without_an_id_offers_a_picker_of_time_first_prompt_and_size(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text(ANSWERS[0]).text(ANSWERS[0])
    chat_and_quit(fake_env, tmp_path, FIRST)
    chat_and_quit(fake_env, tmp_path, SECOND)
    term = ChatTerm(fake_env, tmp_path, columns=100, lines=30)
    try:
        term.wait_for("you>")
        term.type("/resume")
        screen = term.wait_for("Enter picks")
        rows = [line for line in screen.splitlines() if " msgs " in line]
        assert len(rows) == 2, screen
        assert SECOND in rows[0]  # newest first
        assert FIRST in rows[1]
        assert rows[0].startswith(">")
        assert "   2 msgs" in rows[0]  # the prompt and its reply, as `agent sessions list`
        assert all(line[2:6].isdigit() for line in rows)  # the time leads each row
        term.send("x")  # other keys do not reach the input line
        term.send("\x1b")  # Esc cancels
        term.wait_for("Nothing resumed.")
        assert term.prompt_line() == "you>"
        term.type("/resume")
        term.wait_for("Enter picks")
        term.send("\x1b[B")  # Down: the older session
        term.wait_for(
            lambda t: any(line.startswith(">") and FIRST in line for line in t.splitlines())
        )
        term.send("\r")
        screen = term.wait_for("Resumed session")
        assert f"you> {FIRST}" in screen  # its conversation redrawn
        assert "Enter picks" not in screen
    finally:
        term.close()
