"""Approvals in `agent chat` (issue 15): the facts before the answer, numbered answers, a rule
kept for the project across restarts, and what to do instead reaching the model."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_cli.ui.render.render import SPINNER
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

OPTIONS = [
    "1 yes",
    "2 yes, and don't ask again for edit_file in this project",
    "3 no",
    "4 no, and tell the agent what to do instead",
]


def spinner_glyph(screen: str) -> str:
    return next(line for line in screen.split("\n") if "edit_file abc.py" in line)[0]


def script_edit(fake_model: FakeAnthropic, answer: str = "Edited.") -> None:
    fake_model.script.tool_use("read_file", path="abc.py")
    fake_model.script.tool_use("edit_file", path="abc.py", old_string="x = 1", new_string="x = 2")
    fake_model.script.text(answer)


@pytest.mark.parametrize("columns", [80, 140])
def test_an_edit_approval_shows_the_diff_and_every_option(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, columns: int
):
    (tmp_path / "abc.py").write_text("x = 1\n")
    script_edit(fake_model)
    term = ChatTerm(fake_env, tmp_path, columns=columns)
    try:
        term.wait_for("you>")
        term.type("change x")
        screen = term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        assert "Allow edit_file abc.py?" in screen
        assert "-x = 1" in screen
        assert "+x = 2" in screen
        for option in OPTIONS:
            assert option in screen.replace("\n", "")  # wrapped at 80 columns, never cut
        assert (tmp_path / "abc.py").read_text() == "x = 1\n"  # asked before it ran
        term.send("1")
        term.wait_for("Edited.")
        assert (tmp_path / "abc.py").read_text() == "x = 2\n"
    finally:
        term.close()


def test_dont_ask_again_survives_a_restart(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "abc.py").write_text("x = 1\n")
    script_edit(fake_model)
    term = ChatTerm(fake_env, tmp_path)
    try:
        term.wait_for("you>")
        term.type("change x")
        term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        term.send("2")
        term.wait_for("Edited.")
    finally:
        term.close()
    assert "edit_file" not in "".join(p.read_text() for p in tmp_path.glob(".agent/*.json"))
    fake_model.script.tool_use("read_file", path="abc.py")
    fake_model.script.tool_use("edit_file", path="abc.py", old_string="x = 2", new_string="x = 3")
    fake_model.script.text("Edited again.")
    again = ChatTerm(fake_env, tmp_path)
    try:
        again.wait_for("you>")
        again.type("change x again")
        screen = again.wait_for("Edited again.")
        assert "Allow edit_file" not in screen
        assert (tmp_path / "abc.py").read_text() == "x = 3\n"
    finally:
        again.close()


@pytest.mark.usefixtures("sandbox_off")  # a sandboxed write is not asked
def test_no_and_what_to_do_instead_reaches_the_model(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command="rm -rf build && make all")
    fake_model.script.text("Understood.")
    term = ChatTerm(fake_env, tmp_path, columns=80)
    try:
        term.wait_for("you>")
        term.type("rebuild")
        screen = term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        assert "$ rm -rf build && make all" in screen
        term.send("4")
        term.wait_for("Tell the agent what to do instead")
        term.type("use make clean instead")
        told = "↳ told the agent instead: use make clean instead"  # kept on screen
        screen = term.wait_for(lambda t: "Understood." in t and told in t)
        assert screen.index(told) < screen.index("Understood.")
    finally:
        term.close()
    last = fake_model.bodies()[-1]["messages"][-1]["content"]
    (result,) = [b for b in last if b["type"] == "tool_result"]
    text = str(result["content"])
    assert "use make clean instead" in text
    assert result["is_error"] is True


def test_no_gives_one_line_and_the_spinner_waits_while_asked(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "abc.py").write_text("x = 1\n")
    script_edit(fake_model, "Left it.")
    term = ChatTerm(fake_env, tmp_path, columns=80)
    try:
        term.wait_for("you>")
        term.type("change x")
        # the question is drawn at once; the running call's line once the line committed just
        # before it (read_file's) is written above the region
        asked = term.wait_for(
            lambda t: "Esc / Ctrl-C: no, and stop the turn" in t and spinner_glyph(t) in SPINNER
        )
        watched_until = time.monotonic() + 0.6  # six spinner ticks, were it turning
        while time.monotonic() < watched_until:
            term.pump(0.05)
        later = term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        assert spinner_glyph(later) == spinner_glyph(asked)
        term.send("3")
        screen = term.wait_for(lambda t: "Left it." in t and "✗ edit_file abc.py" in t)
    finally:
        term.close()
    outcome = [line for line in screen.split("\n") if "denied" in line or "deny" in line]
    assert outcome == ["✗ edit_file abc.py: denied"], screen  # one line per outcome
    assert (tmp_path / "abc.py").read_text() == "x = 1\n"


@pytest.mark.parametrize("key", ["\x03", "\x1b"], ids=["ctrl-c", "esc"])
def test_a_stop_key_at_an_approval_denies_and_stops_the_turn(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, key: str
):
    (tmp_path / "abc.py").write_text("x = 1\n")
    script_edit(fake_model, "never sent")
    term = ChatTerm(fake_env, tmp_path, columns=80)
    try:
        term.wait_for("you>")
        term.type("change x")
        term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        requests = len(fake_model.requests)
        term.send(key)
        screen = term.wait_for(lambda t: "⏹ interrupted" in t and "working…" not in t)
        assert "Esc / Ctrl-C" not in screen  # the question is gone
        assert len(fake_model.requests) == requests  # the turn did not go on
        assert (tmp_path / "abc.py").read_text() == "x = 1\n"
    finally:
        term.close()


def spinner_seconds(screen: str, label: str) -> int | None:
    """The seconds the running call's spinner line shows, if it is on screen."""
    line = next((ln for ln in screen.split("\n") if label in ln and ln[:1] in SPINNER), None)
    return None if line is None else int(line.rsplit("  ", 1)[1].split()[0].rstrip("s"))


@pytest.mark.usefixtures("sandbox_off")  # a sandboxed command this harmless is not asked
def test_the_tool_timer_does_not_count_the_question_waiting(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    """`bash … 16s` after the question waited 15 s was the user's time, not the command's."""
    fake_model.script.tool_use("bash", command="sleep 1 && rm -f missing.txt")
    fake_model.script.text("Ran it.")
    label = "bash sleep 1 && rm -f missing.txt"
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("run it")
        term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        waited_until = time.monotonic() + 5  # the user reads the question for 5 s
        while time.monotonic() < waited_until:
            term.pump(0.05)
        asked = term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        assert spinner_seconds(asked, label) == 0, asked
        term.send("1")
        shown: list[int] = []
        while "Ran it." not in term.text():
            term.pump(0.05)
            seconds = spinner_seconds(term.text(), label)
            if seconds is not None and "Esc / Ctrl-C" not in term.text():
                shown.append(seconds)
        term.wait_for("Ran it.")
    finally:
        term.close()
    assert shown, "the running command's spinner was never seen"
    assert max(shown) < 5, shown  # the command's second or two, never the 5 s asked


LONG = "rm -rf build/generated && make all TARGETS='parser lexer checker emitter' JOBS=2 V=1"


def question_lines(screen: str) -> list[str]:
    lines = screen.split("\n")
    top = next(n for n, line in enumerate(lines) if line.startswith("Allow bash"))
    end = next(n for n, line in enumerate(lines) if "Esc / Ctrl-C: no" in line)
    return lines[top : end + 1]


def shown_command(screen: str) -> str:
    """The question's command as shown, its wrapped rows joined again (wrapped at spaces)."""
    if "Esc / Ctrl-C: no" not in screen or "Allow bash" not in screen:
        return ""
    lines = question_lines(screen)
    start = next((n for n, line in enumerate(lines) if line.startswith("  $ ")), None)
    if start is None or "  1 yes" not in lines:
        return ""
    return " ".join(line.strip() for line in lines[start : lines.index("  1 yes")])


@pytest.mark.usefixtures("sandbox_off")
def test_an_approval_is_laid_out_again_when_the_terminal_is_resized(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command=LONG)
    fake_model.script.text("Left it.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("rebuild")
        narrow = question_lines(term.wait_for("Esc / Ctrl-C: no, and stop the turn"))
        assert f"  $ {LONG}" not in narrow  # wrapped at 80 columns
        term.resize(140, 24)
        wide = question_lines(
            term.wait_for(lambda t: f"  $ {LONG}" in t.split("\n") and "Esc / Ctrl-C" in t)
        )
        assert len(wide) < len(narrow)  # the command (and the rest) unwrapped at 140 columns
        term.resize(60, 24)  # pyte cuts the rows the wide layout drew; the region is redrawn
        again = question_lines(term.wait_for(lambda t: shown_command(t) == f"$ {LONG}"))
        assert all(len(line) <= 60 for line in again)
        assert "  4 no, and tell the agent what to do instead" in again  # whole, not cut
        assert any(line.startswith("Allow bash") for line in again)
        term.send("3")
        term.wait_for("Left it.")
    finally:
        term.close()


@pytest.mark.parametrize(("columns", "lines"), [(80, 24), (140, 45)])
def test_a_long_diff_is_cut_to_the_screen_and_its_question_stays_whole(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, columns: int, lines: int
):
    """A 24-line diff at 80x24 made a region taller than the screen (`Window too small...`):
    the diff gets the rows the question leaves, with how many lines more it has."""
    old = "".join(f"x{n} = {n}\n" for n in range(30))
    (tmp_path / "abc.py").write_text(old)
    fake_model.script.tool_use("read_file", path="abc.py")
    fake_model.script.tool_use(
        "edit_file", path="abc.py", old_string=old, new_string=old.replace(" = ", " == ")
    )
    fake_model.script.text("Edited.")
    term = ChatTerm(fake_env, tmp_path, columns=columns, lines=lines)
    try:
        term.wait_for("you>")
        term.type("change x")
        screen = term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        shown = screen.split("\n")
        assert "Window too small" not in screen
        head = shown.index("Allow edit_file abc.py?  (edit_file asks in default mode)")
        # the question leaves a row above it: the spinner's, or the conversation's when the
        # question came before the spinner's first frame (a loaded machine)
        assert head >= 1, screen
        assert shown[head - 1].strip(), screen
        assert "  -x0 = 0" in shown  # the diff's first lines, then how many more
        assert any(line.startswith("  +") and line.endswith(" lines") for line in shown)
        for option in OPTIONS:
            assert option in screen.replace("\n", "")
        assert shown[-1].startswith("you>")
        term.send("1")
        term.wait_for("Edited.")
    finally:
        term.close()
    assert (tmp_path / "abc.py").read_text() == old.replace(" = ", " == ")
