"""Auto mode in `agent chat` at 80x24: Shift-Tab reaches it, each verdict is one dim line, an
irreversible reach is still the user's question, and /permissions lists the session's
verdicts. The fake server plays both the model and the reviewer."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

SHIFT_TAB = "\x1b[Z"


def test_auto_mode_in_chat_says_its_verdicts_and_leaves_a_forced_push_to_the_user(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, sandbox_off: None
) -> None:
    reviewer = fake_model.route(lambda b: (b.get("tool_choice") or {}).get("name") == "verdict")
    reviewer.tool_use("verdict", decision="allow", reason="the user asked for the file")
    fake_model.script.tool_use("bash", command="touch made.txt")
    fake_model.script.tool_use("bash", command="git push --force origin main")
    fake_model.script.text("Stopped there.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("mode default")
        for mode in ("accept-edits", "plan", "auto"):
            term.send(SHIFT_TAB)
            term.wait_for(f"mode {mode}")
        term.type("make the file, then push")
        term.wait_for("auto ✓ touch made.txt — the user asked for the file")
        screen = term.wait_for("Esc / Ctrl-C: no, and stop the turn")  # the push: the user's
        assert "git push --force origin main" in screen
        term.send("3")
        term.wait_for("Stopped there.")
        term.type("/permissions")
        screen = term.wait_for("auto-mode verdicts in this session: 2 (1 denied)")
        assert "permission mode: auto" in screen
        assert "auto ✗ git push --force origin main" in screen
    finally:
        term.close()
    assert (tmp_path / "made.txt").exists()
    assert len([b for b in fake_model.bodies() if "tool_choice" in b]) == 1  # one review


def test_after_three_denials_in_a_row_chat_stops_auto_mode_and_asks_the_user(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, sandbox_off: None
) -> None:
    reviewer = fake_model.route(lambda b: (b.get("tool_choice") or {}).get("name") == "verdict")
    for n in range(3):
        fake_model.script.tool_use("bash", command=f"touch try{n}.txt")
        reviewer.tool_use("verdict", decision="deny", reason=f"not asked for ({n})")
    fake_model.script.tool_use("bash", command="touch last.txt")
    fake_model.script.text("Done.")
    term = ChatTerm(fake_env, tmp_path, "--permission-mode", "auto", columns=80, lines=24)
    try:
        term.wait_for("mode auto")
        term.type("make the files")
        screen = term.wait_for("Esc / Ctrl-C: no, and stop the turn")  # the fourth: the user's
        assert "touch last.txt" in screen
        term.send("1")
        term.wait_for("Done.")
        lines = "\n".join(term.scrollback())
    finally:
        term.close()
    assert "auto mode stopped after 3 denials in a row" in lines.replace("\n", " ")
    assert (tmp_path / "last.txt").exists()
    assert not list(tmp_path.glob("try*.txt"))
    assert len([b for b in fake_model.bodies() if "tool_choice" in b]) == 3
