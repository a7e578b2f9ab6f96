"""Thinking in `agent chat`, in a pseudo-terminal at 80x24: it streams dim, folded into one line
in the live area, leaves one folded line in scrollback (never its text), Ctrl-O shows it whole,
and /think turns it off for the next turn."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import run_agent
from tests.e2e.pty_screen import FRAME_BEGIN, ChatTerm
from tests.e2e.test_chat_steering_pty import user_settings
from tests.fake_model import FakeAnthropic, Reply

CTRL_O = "\x0f"
ESC = "\x1b"
ALTERNATE_SCREEN = b"\x1b[?1049h"
THOUGHT = "Weighing the two options carefully before I answer the question at hand."


def test_thinking_folds_to_one_line_ctrl_o_shows_it_and_think_off_stops_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    user_settings(fake_env, {"thinking": {"budget_tokens": 4_000}})
    blocks = [{"type": "thinking", "thinking": THOUGHT}, {"type": "text", "text": "Option B."}]
    # message_start, ping, block start, three thinking deltas: then a pause mid-thought
    fake_model.script.add(Reply(blocks, stall_after=6, delay=1.5))
    fake_model.script.text("Plain answer.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("which option?")
        live = term.wait_for("✻ thinking:")
        (line,) = [row for row in live.splitlines() if "✻ thinking:" in row]
        assert len(line) <= 80
        assert "before I answer" in line  # the newest words of the thought, on one line
        screen = term.wait_for("Option B.")
        assert "✻ thought for" in screen
        assert "Weighing" not in term.wait_idle()  # folded: its text is not in scrollback
        term.send(CTRL_O)
        view = term.wait_for("✻ thinking")
        assert "Weighing the two options" in view
        # the view's frames are whole too (synchronized output): a half-drawn one was read
        assert FRAME_BEGIN + ALTERNATE_SCREEN in term.raw
        term.send(ESC)
        term.wait_for("you>")
        term.type("/think off")
        term.wait_for("Thinking off from the next turn on.")
        term.type("again")
        term.wait_for("Plain answer.")
    finally:
        term.close()
    first, second = fake_model.bodies()
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 4_000}
    assert "thinking" not in second
    assert second["messages"][1]["content"][0]["signature"].startswith("sigfake_")


def test_think_says_its_state_and_refuses_a_budget_over_max_tokens(
    fake_env: dict[str, str], tmp_path: Path
):
    lines = "/think\n/think 20000\n/think maybe\n/think 2,000\n/think\n/think on\n"
    proc = run_agent(fake_env, tmp_path, "chat", stdin=lines)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "Thinking: off (/think on, /think off, /think 16000)",
        "the thinking budget must be below max_tokens (16,000).",
        "/think maybe: say on, off or a number of tokens.",
        "Thinking on, 2,000 tokens from the next turn on.",
        "Thinking: on, 2,000 tokens (/think on, /think off, /think 16000)",
        "Thinking on, 8,000 tokens from the next turn on.",
    ]
