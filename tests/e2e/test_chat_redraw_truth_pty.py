"""A `--continue` redraw tells what happened (issue 37): a session with an `@file`, a
`!command`, a denied edit and an interrupted reply, drawn again by the real `agent chat`, shows
none of the texts the agent added to the conversation as typed by the user (`you> [The user
interrupted…`, `you> I ran…`, `you> Contents of @…`), and its tool lines are the live screen's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.pty_screen import CTRL_C, CTRL_D, ChatTerm
from tests.fake_model import FakeAnthropic

INTERNAL = ("you> [The user interrupted", "you> I ran", "you> Contents of")
MARKS = ("✔", "✗", "⏹")


def tool_lines(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines if line.strip().startswith(MARKS)]


def live_session(term: ChatTerm, fake_model: FakeAnthropic) -> None:
    fake_model.script.text("Seen the table: ATTACH-DONE.")
    term.type("look at @table.py please")
    term.wait_for("ATTACH-DONE")
    term.wait_idle()
    term.type("!echo shell-output-here")
    term.wait_for("✔ bash echo shell-output-here")
    term.wait_idle()
    fake_model.script.tool_use(
        "edit_file", path="table.py", old_string="rows = 57", new_string="rows = 58"
    )
    fake_model.script.text("Left it alone: DENY-DONE.")
    term.type("edit the table")
    term.wait_for("Esc / Ctrl-C: no, and stop the turn")
    term.send("3")
    term.wait_for("DENY-DONE")
    term.wait_idle()
    fake_model.script.text("Partial words, then the rest", stall_after=4, delay=60)
    term.type("a slow one")
    term.wait_for("Partial")
    term.send(CTRL_C)
    term.wait_for("interrupted")
    term.wait_idle()


@pytest.mark.parametrize("size", [(80, 24), (140, 45)], ids=["80x24", "140x45"])
def test_a_continued_session_is_redrawn_as_it_was_shown(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, size: tuple[int, int]
):
    (tmp_path / "table.py").write_text("".join(f"rows = {n}\n" for n in range(1, 58)))
    columns, rows = size
    term = ChatTerm(fake_env, tmp_path, columns=columns, lines=rows, scrollback=True)
    try:
        term.wait_for("you>")
        live_session(term, fake_model)
        live = term.scrollback()
        term.send(CTRL_D)
        term.finish()
    finally:
        term.close()
    again = ChatTerm(fake_env, tmp_path, "--continue", columns=columns, lines=rows, scrollback=True)
    try:
        again.wait_for("Resumed session")
        redrawn = again.scrollback()
    finally:
        again.close()
    text = "\n".join(redrawn)
    for internal in INTERNAL:
        assert internal not in text, text
    assert tool_lines(redrawn) == tool_lines(live), text
    assert any("✗ edit_file" in line for line in tool_lines(redrawn))  # the denial, as denied
    assert "@table.py (57 lines)" in text
    assert "you> !echo shell-output-here" in text
    assert "⏹ interrupted" in text
    for prompt in ("look at @table.py please", "edit the table", "a slow one"):
        assert f"you> {prompt}" in text
