"""Issue 56's small list, as a person sees it in `agent chat` at 80x24 against the fake model:
the status bar while a question waits, ask_user's count, the goal line's money and wording,
where /export writes, what /copy says inside tmux, /help on one screen."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.checkpoint_support import git, make_workspace, script_the_turn
from tests.e2e.pty_screen import ChatTerm
from tests.e2e.test_chat_ask_user_pty import CHECKS, ESC, NAME, SLOW, start
from tests.fake_model import FakeAnthropic


def status_row(term: ChatTerm) -> str:
    """The status bar: the row above the input box's first row."""
    rows = [line.rstrip() for line in term.screen.display]
    prompt = max(i for i, line in enumerate(rows) if line.startswith("you>"))
    return rows[prompt - 1]


def test_an_approval_says_what_it_waits_for_not_working(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "abc.py").write_text("x = 1\n")
    fake_model.script.tool_use("read_file", path="abc.py")
    fake_model.script.tool_use("edit_file", path="abc.py", old_string="x = 1", new_string="x = 2")
    fake_model.script.text("Left it.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("change x")
        term.wait_for(lambda t: "answer the question above" in status_row(term))
        assert "Esc: no, and stop the turn" in status_row(term)
        assert "working…" not in term.text()
        term.send("4")  # no, and say what instead: a typed answer
        term.wait_for(lambda t: "type your answer · Enter sends" in status_row(term))
        term.type("leave it")
        term.wait_for("Left it.")
    finally:
        term.close()


def test_undo_question_says_what_it_waits_for_not_working(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=True)
    term = ChatTerm(fake_env, workspace, "--permission-mode", "bypass", columns=80, lines=24)
    try:
        term.wait_for("you>")
        script_the_turn(fake_model)
        term.type("change things")
        term.wait_for(lambda t: "All three done." in t and "working…" not in t)
        term.type("/undo")
        term.wait_for("Undo the last turn?")
        term.wait_for(lambda t: "answer the question above · Esc cancels" in status_row(term))
        assert "working…" not in term.text()
        term.send("n")
        term.wait_for("Nothing undone.")
    finally:
        term.close()


def test_resume_picker_says_what_it_waits_for_not_working(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("First answer.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("first session")
        term.wait_for(lambda t: "First answer." in t and "working…" not in t)
        term.type("/clear")
        term.wait_for("the previous one: --resume")
        term.type("/resume")
        term.wait_for("Resume which session?")
        term.wait_for(lambda t: "pick one above · Esc cancels" in status_row(term))
        assert "working…" not in term.text()
        term.send("\x1b")  # Esc: nothing resumed
        term.wait_for(lambda t: "pick one above" not in t and "Resume which" not in t)
    finally:
        term.close()


def test_ask_user_counts_a_declined_question_as_declined(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    term = start(fake_model, fake_env, tmp_path, (80, 24), NAME, CHECKS)
    try:
        term.wait_for("(1/2)", timeout=SLOW)
        term.send("2")
        term.wait_for("(2/2)")
        term.send(ESC)  # the second declined
        screen = term.wait_for("Thanks, going on.")
        assert "ask_user (1 answered, 1 declined)" in screen
        assert "2 answered" not in screen
    finally:
        term.close()


def test_goal_line_says_n_a_and_names_what_chat_can_do(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    folder = Path(fake_env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True)
    unpriced = {"prices": {}, "goal": {"max_turns": 1}}  # the model has no price
    (folder / "settings.json").write_text(json.dumps(unpriced))
    fake_model.script.text("Tried.")
    term = ChatTerm(fake_env, tmp_path, "--permission-mode", "bypass", columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("/goal false")
        term.wait_for("Goal set (command): false")
        term.type("make it true")
        screen = term.wait_for(lambda t: "goal unmet" in t and "working…" not in t)
        line = " ".join(screen[screen.index("◎ goal unmet") :].split())
        assert "1 attempt, last exit 1" in line
        assert ", n/a: not met in 1 turn" in line  # no price known: not $0.0000
        assert "(setting goal.max_turns 1; /goal <check> again to go on)" in line
        assert "--max-turns" not in screen
        assert "$0.0000" not in screen
    finally:
        term.close()


def test_export_writes_beside_the_transcript_or_where_told_and_says_the_full_path(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    workspace = make_workspace(tmp_path, repo=True)
    untracked = git(workspace, "status", "--porcelain")
    fake_model.script.text("Hello there.")
    term = ChatTerm(fake_env, workspace, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("hi")
        term.wait_for(lambda t: "Hello there." in t and "working…" not in t)
        term.type("/export")
        screen = term.wait_for(lambda t: "Exported 2 messages to" in t and "working…" not in t)
        said = re.search(r"Exported 2 messages to ?(/\S+?\.md)", screen.replace("\n", ""))
        assert said is not None  # the full path, wrapped at 80 columns
        shown = Path(said.group(1))
        assert shown.is_absolute()
        assert shown.is_file()
        assert (shown.parent / f"{shown.stem.removeprefix('agent-')}.jsonl").is_file()
        assert "## Agent\n\nHello there." in shown.read_text()
        assert git(workspace, "status", "--porcelain") == untracked  # nothing left in the repo

        term.type("/export notes.md")
        term.wait_for(
            lambda t: f"to{workspace / 'notes.md'}" in t.replace("\n", "").replace(" ", "")
        )
        assert "Hello there." in (workspace / "notes.md").read_text()
    finally:
        term.close()


def test_copy_inside_tmux_says_tmux_decides_and_where_the_reply_also_is(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("Copy me, «please».")
    env = {**fake_env, "TMUX": "/tmp/tmux-0/default,1,0"}  # as tmux sets it for its panes
    term = ChatTerm(env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("hello")
        term.wait_for(lambda t: "Copy me, «please»." in t and "working…" not in t)
        term.type("/copy")
        screen = term.wait_for(lambda t: "set-clipboard" in t and "working…" not in t)
        flat = " ".join(screen.split())
        assert "Asked the terminal to copy the last reply (18 characters, OSC 52)" in flat
        assert "inside tmux its set-clipboard option decides" in flat
        assert "Copied" not in screen
        assert "The reply is also in" in flat
        said = re.search(r"(/\S+?-reply\.md)", screen.replace("\n", ""))
        assert said is not None
        assert Path(said.group(1)).read_text() == "Copy me, «please»."
    finally:
        term.close()
    assert b"\x1bPtmux;" in term.raw  # sent wrapped for the outer terminal as well


def test_help_fits_one_screen_and_help_all_lists_the_rest(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24, scrollback=True)
    try:
        term.wait_for("you>")
        term.type("/help")
        screen = term.wait_for("/help all: every command")
        rows = screen.split("\n")
        assert "you> /help" in rows  # the question and the whole answer on one screen
        shown = rows[rows.index("you> /help") + 1 :]
        for name in ("/clear", "/resume", "/undo", "/export", "/exit"):
            assert any(row.startswith(name + " ") for row in shown), name
        assert any(row.startswith("Keys: Enter sends") for row in shown)
        term.type("/help all")
        term.wait_for("attach a file to the prompt")  # the whole list's last line
        every = term.scrollback()
        block = every[every.index("you> /help all") :]
        for name in ("/sessions", "/fork", "/context", "/btw", "/jobs", "Ctrl-B", "F2"):
            assert any(row.startswith(name + " ") for row in block), name
    finally:
        term.close()
