"""An edit that will fail is not asked about (issue 37 item 8), in the real `agent chat` at
80x24: no question with nothing to review, the edit's own error on its line, the file as it
was, and the turn goes on to the model's next reply."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic


def test_an_edit_whose_text_is_not_there_fails_unasked(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "abc.py").write_text("x = 1\n")
    fake_model.script.tool_use("read_file", path="abc.py")
    fake_model.script.tool_use("edit_file", path="abc.py", old_string="y = 1", new_string="y = 2")
    fake_model.script.text("The text was not there; nothing changed.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("change y")
        seen: list[str] = []

        def done(screen: str) -> bool:
            seen.append(screen)  # every screen looked at, to check none asked
            return "nothing changed." in screen and "working…" not in screen

        screen = term.wait_for(done)
        assert "✗ edit_file abc.py: error" in screen
        assert "old_string was not found in abc.py" in screen  # its preview says why
        assert not any("Allow edit_file" in frame for frame in seen)
        assert (tmp_path / "abc.py").read_text() == "x = 1\n"
        result = fake_model.bodies()[-1]["messages"][-1]["content"][0]
        assert result["is_error"] is True
        assert "old_string was not found" in str(result["content"])
    finally:
        term.close()
