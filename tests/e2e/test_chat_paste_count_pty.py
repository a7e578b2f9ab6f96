"""A long paste says how many lines it holds (issue 56 item 3), in the real `agent chat` at
80x24: the input shows only its last rows, so a row above it counts the lines and how many are
out of view; what is sent is still the whole text, and the count goes with it."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic


def test_a_30_line_paste_says_it_holds_30_lines_and_sends_them_all(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("Got the paste.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    pasted = [f"pasted line {n:02d}" for n in range(1, 31)]
    try:
        term.wait_for("you>")
        term.send("\x1b[200~" + "\r\n".join(pasted) + "\x1b[201~")
        screen = term.wait_for("pasted line 30")
        assert "pasted line 01" not in screen  # the input shows its tail only
        rows = screen.split("\n")
        first = next(i for i, row in enumerate(rows) if "pasted line" in row)
        assert "30 lines" in rows[first - 1], rows[first - 1]  # right above the input
        shown = sum("pasted line" in row for row in rows)
        assert f"{30 - shown} out of view" in rows[first - 1]
        term.send("\r")
        screen = term.wait_for("Got the paste.")
        assert "30 lines" not in screen.split("Got the paste.")[-1]  # gone with the text
        (body,) = fake_model.bodies()
        assert body["messages"][0]["content"][0]["text"].split("\n") == pasted
    finally:
        term.close()


def test_a_short_paste_that_fits_has_no_count(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.send("\x1b[200~" + "\r\n".join(["first", "second", "third"]) + "\x1b[201~")
        screen = term.wait_for("third")
        assert "first" in screen
        assert "lines" not in screen.split("first")[0].split("\n")[-2]
        assert "out of view" not in screen
    finally:
        term.close()
