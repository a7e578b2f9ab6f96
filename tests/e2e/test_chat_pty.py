"""`agent chat` in a pseudo-terminal: the real CLI, the real SDK, the fake model server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_cli.core.history import USER_INTERRUPTED
from tests.e2e.pty_screen import CTRL_C, CTRL_D, ChatTerm
from tests.fake_model import FakeAnthropic


@pytest.fixture
def term(fake_env: dict[str, str], tmp_path: Path) -> Iterator[ChatTerm]:
    t = ChatTerm(fake_env, tmp_path)
    t.wait_for("you>")
    yield t
    t.close()


def test_request_shows_the_answer(fake_model: FakeAnthropic, term: ChatTerm):
    fake_model.script.text("The answer is **42**.\n\nA second paragraph.")
    term.type("what is the answer?")
    # wait for the turn to end: until then the last block may still be the live, unfinished one
    screen = term.wait_for(lambda text: "A second paragraph." in text and "working…" not in text)
    assert "you> what is the answer?" in screen
    assert "**" not in screen  # NO_COLOR: the markdown as readable plain text
    first = screen.index("The answer is 42.")
    assert first < screen.index("A second paragraph.")  # committed in order
    (body,) = fake_model.bodies()
    assert body["messages"][0]["content"][0]["text"] == "what is the answer?"


def test_ctrl_c_stops_a_slow_reply_and_the_next_request_is_valid(
    fake_model: FakeAnthropic, term: ChatTerm
):
    fake_model.script.text("too late", delay=30).text("second answer")
    term.type("slow please")
    term.wait_for(lambda _: len(fake_model.requests) == 1)
    term.send(CTRL_C)
    screen = term.wait_for("interrupted")
    assert "too late" not in screen
    term.type("and now?")
    screen = term.wait_for("second answer")
    _, second = fake_model.bodies()  # the fake server also checked it against SPEC §16
    texts = [b["text"] for m in second["messages"] for b in m["content"] if b["type"] == "text"]
    assert texts == ["slow please", USER_INTERRUPTED, "and now?"]
    assert [m["role"] for m in second["messages"]] == ["user"]  # nothing was said: one message


def test_slash_commands(fake_model: FakeAnthropic, term: ChatTerm):
    term.type("/todos")
    term.wait_for("No todo list yet.")
    term.type("/notes")
    term.wait_for("No notes in this session yet.")
    term.type("/compact")
    term.wait_for(lambda t: "compacted" in t or "Compaction is not available" in t)
    term.type("/nope")
    term.wait_for("Unknown command /nope. Known: /help /todos /notes /compact")
    term.type("/exit")
    out = term.finish()
    assert "Resume it with: agent chat --resume " in out


def test_ctrl_c_twice_exits_and_tells_how_to_resume(term: ChatTerm):
    term.send(CTRL_C)
    term.wait_for("press Ctrl-C again to exit")
    term.send(CTRL_C)
    out = term.finish()
    assert "Resume it with: agent chat --resume " in out


def test_ctrl_d_exits(term: ChatTerm):
    term.send(CTRL_D)
    assert "Resume it with" in term.finish()
