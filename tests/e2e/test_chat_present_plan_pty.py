"""present_plan in `agent chat` (issue 32), as a person sees it at 80x24: the whole plan
reachable in the dialog with its three answers always in view, through a resize; each answer's
effect on what the model is sent next (the mode restored, a fresh context, the feedback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.pty_screen import ENTER, ChatTerm
from tests.fake_model import FakeAnthropic

STEPS = [f"Step {n:02d}: change part {n} of greet.py" for n in range(1, 61)]
PLAN = "\n".join(f"- {step}" for step in STEPS)  # 60 lines
REQUEST = "plan the greeting change"
ANSWERS = ["1. yes, implement here", "2. yes, in a fresh context", "3. no, keep planning"]
SLOW = 90  # the first request, on a busy machine
PAGE_DOWN = "\x1b[6~"


def script_plan(fake_model: FakeAnthropic) -> None:
    fake_model.script.tool_use("read_file", path="greet.py")
    fake_model.script.tool_use("present_plan", plan=PLAN)


def answers_shown(screen: str) -> bool:
    return all(answer in screen for answer in ANSWERS)


def read_whole_plan(term: ChatTerm) -> set[str]:
    """Page through the dialog; every plan line seen, the answers checked on every page."""
    seen: set[str] = set()
    screen = term.wait_for("of 60 · PgUp/PgDn scroll", timeout=SLOW)
    for _ in range(12):
        assert answers_shown(screen), screen
        seen |= {step for step in STEPS if step in screen}
        if "-60 of 60" in screen:
            break
        term.send(PAGE_DOWN)
        before = screen
        screen = term.wait_for(lambda t, b=before: t != b and "of 60" in t)  # type: ignore[misc]
    return seen


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "greet.py").write_text("def greet():\n    return 'hi'\n")
    return tmp_path


@pytest.mark.parametrize(
    ("start", "shift_tabs", "back_to"),
    # started in plan mode: back to default; Shift-Tab from accept-edits: back to that
    [("plan", 0, "default"), ("accept-edits", 1, "accept-edits")],
)
def test_the_whole_plan_on_screen_and_yes_restores_the_mode(
    fake_model: FakeAnthropic,
    fake_env: dict[str, str],
    workspace: Path,
    start: str,
    shift_tabs: int,
    back_to: str,
):
    script_plan(fake_model)
    fake_model.script.tool_use(
        "edit_file", path="greet.py", old_string="'hi'", new_string="'hello'"
    )
    fake_model.script.text("Implemented.")
    term = ChatTerm(fake_env, workspace, "--permission-mode", start, columns=80, lines=24)
    try:
        term.wait_for("you>")
        for _ in range(shift_tabs):  # into plan mode mid-session: present_plan is offered
            term.send("\x1b[Z")
        term.wait_for("mode plan")
        term.type(REQUEST)
        assert read_whole_plan(term) == set(STEPS)
        term.resize(100, 30)  # the dialog is laid out again at the new size
        term.wait_for(lambda t: answers_shown(t) and "of 60" in t)
        term.resize(80, 24)
        screen = term.wait_for(lambda t: answers_shown(t) and "of 60" in t)
        assert f"(mode back to {back_to})" in screen, screen
        term.send("1")
        if back_to == "default":  # the edit is asked, as default mode asks
            term.wait_for("Allow edit_file greet.py?")
            term.send("1")
        screen = term.wait_for("Implemented.")
        assert "Allow edit_file" not in screen or back_to == "default"
        assert f"mode {back_to}" in term.wait_idle()
    finally:
        term.close()
    assert "'hello'" in (workspace / "greet.py").read_text()
    bodies = fake_model.bodies()
    tools = [[t["name"] for t in body["tools"]] for body in bodies]
    assert "present_plan" in tools[0]
    assert "present_plan" not in tools[-1]  # out of plan mode, no plan to present
    (kept,) = (workspace / ".agent" / "plans").glob("*.md")
    assert kept.read_text() == PLAN + "\n"


def test_a_fresh_context_starts_from_the_plan_and_the_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], workspace: Path
):
    script_plan(fake_model)
    fake_model.script.text("Starting from the plan.")
    term = ChatTerm(fake_env, workspace, "--permission-mode", "plan", columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type(REQUEST)
        term.wait_for(answers_shown, timeout=SLOW)
        term.send("2")
        term.wait_for("Starting from the plan.")
        assert "mode default" in term.wait_idle()
    finally:
        term.close()
    planning, presenting, fresh = fake_model.bodies()
    (first,) = fresh["messages"]  # nothing of the planning turn
    text = first["content"][0]["text"] if isinstance(first["content"], list) else first["content"]
    assert first["role"] == "user"
    assert REQUEST in text
    assert PLAN in text
    assert "greet.py" in text  # the file read while planning
    planned = json.dumps(presenting["messages"])
    assert "tool_use" in planned
    assert "tool_use" not in json.dumps(fresh["messages"])
    assert "present_plan" not in [t["name"] for t in fresh["tools"]]
    assert len(planning["messages"]) == 1


def test_keep_planning_sends_the_feedback(
    fake_model: FakeAnthropic, fake_env: dict[str, str], workspace: Path
):
    script_plan(fake_model)
    fake_model.script.text("Revising.")
    term = ChatTerm(fake_env, workspace, "--permission-mode", "plan", columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type(REQUEST)
        term.wait_for(answers_shown, timeout=SLOW)
        term.send("\x1b[B\x1b[B")  # down twice: keep planning
        term.wait_for("> 3. no, keep planning")
        term.send(ENTER)
        term.wait_for("What should change in the plan?")
        term.type("split step 7 in two")
        term.wait_for("Revising.")
        assert "mode plan" in term.wait_idle()
    finally:
        term.close()
    last = fake_model.bodies()[-1]["messages"][-1]["content"]
    (result,) = [b for b in last if b["type"] == "tool_result"]
    assert "split step 7 in two" in str(result["content"])
    assert "keep planning" in str(result["content"])


def test_slash_plan_submits_the_goal_and_slash_plans_lists_the_plan(
    fake_model: FakeAnthropic, fake_env: dict[str, str], workspace: Path
):
    fake_model.script.tool_use("present_plan", plan="# Greet louder\n\n1. Return 'HI'")
    fake_model.script.text("Done.")
    term = ChatTerm(fake_env, workspace, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("/plan make greet louder")
        term.wait_for("mode: plan (read-only; an approved plan goes back to default)")
        screen = term.wait_for(answers_shown, timeout=SLOW)
        assert "◆ Plan (" in screen  # a short plan: shown whole, nothing to scroll
        assert "PgUp/PgDn" not in screen
        assert "Return 'HI'" in screen
        term.send("1")
        assert "mode default" in term.wait_idle()
        term.type("/plans")
        listing = term.wait_for(
            lambda t: "Plans kept in" in t and "Greet louder" in t.split("/plans")[-1]
        )
    finally:
        term.close()
    first = fake_model.bodies()[0]
    assert first["messages"][-1]["content"][0]["text"] == "make greet louder"
    assert "present_plan" in [t["name"] for t in first["tools"]]
    (kept,) = (workspace / ".agent" / "plans").glob("*.md")
    assert f"{kept.name}" in listing
    assert "3 lines  # Greet louder" in listing
