"""ask_user in `agent chat` (issue 32), as a person sees it at 80x24 and 140x45: the questions
one after the other as a picker, answered with keys (a number, arrows and Space in a
multi-select), "other…" with typed text, Esc declining; the answers in the next request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_cli.ui.render.render import SPINNER
from tests.e2e.pty_screen import ENTER, ChatTerm
from tests.fake_model import FakeAnthropic

NAME = {
    "question": "Which name should the helper get?",
    "header": "Name",
    "options": [
        {"label": "greet", "description": "short, matches the module"},
        {"label": "say_hello", "description": "says what it does"},
    ],
}
CHECKS = {
    "question": "Which checks should run after the change?",
    "header": "Checks",
    "multi_select": True,
    "options": [
        {"label": "unit tests"},
        {"label": "type check", "description": "mypy --strict"},
        {"label": "lint"},
    ],
}
SLOW = 90  # the first request, on a busy machine
DOWN, SPACE, ESC = "\x1b[B", " ", "\x1b"
SIZES = [(80, 24), (140, 45)]


def spinner(screen: str) -> str:
    line = next(line for line in screen.split("\n") if "ask_user" in line)
    assert line[0] in SPINNER
    return line


def tool_result(fake_model: FakeAnthropic) -> str:
    """The ask_user result in the request after it."""
    last = fake_model.bodies()[-1]["messages"][-1]["content"]
    (result,) = [b for b in last if b["type"] == "tool_result"]
    return str(result["content"])


def start(
    fake_model: FakeAnthropic,
    env: dict[str, str],
    tmp_path: Path,
    size: tuple[int, int],
    *questions: dict[str, Any],
) -> ChatTerm:
    fake_model.script.tool_use("ask_user", questions=list(questions))
    fake_model.script.text("Thanks, going on.")
    term = ChatTerm(env, tmp_path, columns=size[0], lines=size[1])
    term.wait_for("you>")
    term.type("add a helper")
    return term


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "140x45"])
def test_two_questions_answered_with_keys(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, size: tuple[int, int]
):
    term = start(fake_model, fake_env, tmp_path, size, NAME, CHECKS)
    try:
        # the picker at once; the running call's line once what was committed before is written
        first = term.wait_for(lambda t: "get? (1/2)" in t and "ask_user" in t, timeout=SLOW)
        assert "1. greet — short, matches the module" in first
        assert "2. say_hello — says what it does" in first
        assert "3. other… (type an answer)" in first
        asked = spinner(first)
        term.pump(0.6)  # six spinner ticks, were it turning
        assert spinner(term.wait_for("get? (1/2)")) == asked  # paused while the user is asked
        term.send("2")  # a single choice: its number picks it
        answered = "? Name: Which name should the helper get? → say_hello"
        second = term.wait_for(lambda t: answered in t and "change? (2/2)" in t)
        assert "[Checks] Which checks should run after the change? (2/2)" in second
        assert "[ ] 2. type check — mypy --strict" in second
        term.send("1")  # ticks unit tests
        term.send(DOWN + DOWN + SPACE)  # ticks lint
        term.wait_for(lambda t: "[x] 1. unit tests" in t and "[x] 3. lint" in t)
        term.send(ENTER)
        screen = term.wait_for("Thanks, going on.")
        assert "→ unit tests; lint" in screen.replace("\n", "")
    finally:
        term.close()
    result = tool_result(fake_model)
    assert "Q: Which name should the helper get?\nA: say_hello" in result
    assert "Q: Which checks should run after the change?\nA: unit tests; lint" in result


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "140x45"])
def test_other_takes_typed_text(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, size: tuple[int, int]
):
    term = start(fake_model, fake_env, tmp_path, size, NAME)
    try:
        term.wait_for("3. other… (type an answer)", timeout=SLOW)
        term.send(DOWN + DOWN)
        term.wait_for("> 3. other…")
        term.send(ENTER)
        term.wait_for("Your answer to “Name”")
        term.type("welcome")
        term.wait_for("Thanks, going on.")
    finally:
        term.close()
    assert "Q: Which name should the helper get?\nA: welcome" in tool_result(fake_model)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "140x45"])
def test_esc_declines_and_the_turn_goes_on(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, size: tuple[int, int]
):
    term = start(fake_model, fake_env, tmp_path, size, NAME, CHECKS)
    try:
        term.wait_for("(1/2)", timeout=SLOW)
        term.send(ESC)
        screen = term.wait_for("Thanks, going on.")
        assert "interrupted" not in screen
    finally:
        term.close()
    result = tool_result(fake_model)
    assert result.count("A: (the user declined to answer)") == 2
