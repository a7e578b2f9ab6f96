"""A `--continue` redraw is what was shown live (issue 56 item 2): a session with a goal (its
instruction, a failed check and the feedback the model was sent), a background job's end that
woke the idle chat, a turn a 529 failed and a reply that thought first, drawn again by the real
`agent chat`: the texts the runtime gave the model are never `you>` lines, the failed turn's
error line and the `✻ thought` line are there, the goal's lines as they were live."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.pty_screen import CTRL_D, ChatTerm
from tests.fake_model import FakeAnthropic

PROMPTS = ("reach the goal", "this one fails", "run the job")
# the check fails once (and leaves the file that makes it pass the next time)
CHECK = "test -e goal-met || { touch goal-met; false; }"
JOB = "for i in $(seq 400); do [ -e go ] && break; sleep 0.05; done; echo job finished"


def _settings(env: dict[str, str]) -> None:
    folder = Path(env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    settings = {
        "max_retries": 0,
        "thinking": {"budget_tokens": 4_000},
        "jobs": {"wake_on_end": True},
    }
    (folder / "settings.json").write_text(json.dumps(settings))


def _live_session(term: ChatTerm, fake_model: FakeAnthropic, workspace: Path) -> None:
    thought = [
        {"type": "thinking", "thinking": "Is the check met yet? Try once."},
        {"type": "text", "text": "First attempt."},
    ]
    fake_model.script.reply(thought)
    fake_model.script.text("Second attempt: GOAL-DONE.")
    term.type(f"/goal {CHECK}")
    term.wait_for("Goal set")
    term.type(PROMPTS[0])
    term.wait_for("GOAL-DONE")
    term.wait_idle()
    fake_model.script.error(529)
    term.type(PROMPTS[1])
    term.wait_for("✗ ")
    term.wait_idle()
    call = {
        "type": "tool_use",
        "name": "bash",
        "input": {"command": JOB, "run_in_background": True},
    }
    # with thinking on, a tool round's reply starts with its thinking (the API's rule)
    fake_model.script.reply([{"type": "thinking", "thinking": "Start it and wait."}, call])
    fake_model.script.text("JOB-STARTED")
    fake_model.script.text("The job is done: WOKE-UP.")
    term.type(PROMPTS[2])
    term.wait_for("JOB-STARTED")
    term.wait_idle()
    (workspace / "go").touch()  # the job ends while the chat is idle: it starts a turn
    term.wait_for("WOKE-UP")
    term.wait_idle()


def _marked(lines: list[str], marks: tuple[str, ...]) -> list[str]:
    return [line.strip() for line in lines if line.strip().startswith(marks)]


def _folded(lines: list[str]) -> list[str]:
    return ["✻ thought" if line.startswith("✻ thought for") else line for line in lines]


def test_a_continued_session_draws_runtime_texts_errors_and_thinking_as_live(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    _settings(fake_env)
    term = ChatTerm(fake_env, tmp_path, "--permission-mode", "bypass", columns=140, lines=45,
                    scrollback=True)  # fmt: skip
    try:
        term.wait_for("you>")
        _live_session(term, fake_model, tmp_path)
        live = term.scrollback()
        term.send(CTRL_D)
        term.finish()
    finally:
        term.close()
    assert len(fake_model.bodies()) == 6  # two goal turns, the 529, the job's two, the wake
    again = ChatTerm(fake_env, tmp_path, "--continue", columns=140, lines=45, scrollback=True)
    try:
        again.wait_for("Resumed session")
        redrawn = again.scrollback()
    finally:
        again.close()
    text = "\n".join(redrawn)
    you = [line for line in redrawn if line.startswith("you> ")]
    assert [line.removeprefix("you> ") for line in you] == list(PROMPTS), you
    # the failed turn's error, the goal's checks and the thought: the lines the live screen had
    assert _marked(live, ("✗", "◎")) == _marked(redrawn, ("✗", "◎")), text
    assert any("529" in line or "overloaded" in line for line in _marked(redrawn, ("✗",)))
    # the thoughts where they were, before their replies' calls (their seconds may differ)
    marks = ("✗", "◎", "✔", "✻")
    assert _folded(_marked(live, marks)) == _folded(_marked(redrawn, marks)), text
    assert _folded(_marked(redrawn, ("✻",))) == ["✻ thought"] * 2, text
    assert "Is the check met yet" not in text  # folded, as live
    assert "⚑ background job j1" in text  # the job's end, in its own style
    assert "[Goal: when your turn ends" in text  # the instruction the model got, not as typed
    for shown in ("First attempt.", "GOAL-DONE", "JOB-STARTED", "WOKE-UP"):
        assert shown in text
