"""Steering a text-only reply in the real `agent chat` (issue 37): what is typed while the model
writes waits under the live reply (never committed inside it), reaches the model once that
reply is over, and is shown once in scrollback between the two replies, neither glued on."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

FIRST = "\n\n".join(
    f"Paragraph P{n} of the first answer, about the one hot path." for n in range(1, 9)
)
SECOND = "Tables too, as you asked: SECOND-REPLY."
NOTE = "and also mention tables"


def test_text_typed_during_a_text_reply_is_shown_once_between_the_replies(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text(FIRST, chunks=24, pace=0.12)
    fake_model.script.text(SECOND)
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24, scrollback=True)
    try:
        term.wait_for("you>")
        term.type("explain the loop")
        term.wait_for("P2 of")
        term.type(NOTE)
        screen = term.wait_for("(queued: the model reads it")  # under the reply, as it streams
        assert f"⧗ {NOTE}" in screen
        term.wait_for("SECOND-REPLY")
        term.wait_idle()
        lines = [line for line in term.scrollback() if line.strip()]
    finally:
        term.close()
    shown = [n for n, line in enumerate(lines) if NOTE in line]
    assert len(shown) == 1, lines  # once: not as `you>` inside the reply, not queued as well
    (at,) = shown
    assert lines[at] == f"↳ sent to the model: {NOTE}"
    last_of_first = max(n for n, line in enumerate(lines) if "P8 of" in line)
    second = next(n for n, line in enumerate(lines) if "SECOND-REPLY" in line)
    assert last_of_first < at < second  # after the whole first reply, before the next one
    assert lines[second].startswith("Tables too")  # its own block, not glued onto P8
    assert all("(queued:" not in line for line in lines)
    _, body = fake_model.bodies()
    last = body["messages"][-1]
    assert last["role"] == "user"
    assert [b["text"] for b in last["content"]] == [NOTE]
