"""Notes the parent can trust, through the real SDK and the fake server: each evidence item is
checked against the workspace and the subagent's own tool calls, the cited lines are quoted into
the parent's tool_result, failed evidence gets one fix-up turn, and the runner's figures, not
the model's word, decide the marks, the confidence cap and the status."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.events import ToolEnd
from agent_cli.core.settings.schema import Settings
from tests.e2e.agents import bypass, collect, make_agent
from tests.fake_model import FakeAnthropic
from tests.fake_model.script import Script
from tests.unit.subagent.test_subagent_runs import (
    SUBAGENT,
    cancel_once_the_child_asked,
    delegate,
    no_retries,
    only_note,
    parent_result,
)

A_PY = [
    "import os",
    "",
    "def foo(x):",
    "    return x + 1",
    "",
    "def bar():",
    "    return foo(2)",
    "",
    "# end",
    "VALUE = 3",
]
FIXUP_HEAD = "Your note was checked against the workspace"

pytestmark = pytest.mark.usefixtures("sdk_env")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("\n".join(A_PY) + "\n")
    return tmp_path


def child_bodies(server: FakeAnthropic) -> list[dict[str, Any]]:
    return [b for b in server.bodies() if SUBAGENT(b)]


def last_user_text(body: dict[str, Any]) -> str:
    return "\n".join(
        b.get("text", "") for b in body["messages"][-1]["content"] if b["type"] == "text"
    )


def reads_a_py(child: Script) -> Script:
    return child.tool_uses(("read_file", {"path": "a.py"}), text="Reading a.py.")


def verdicts(note: dict[str, Any]) -> list[str]:
    return [c["verdict"] for c in note["evidence_checks"]]


def run(workspace: Path) -> None:
    asyncio.run(collect(make_agent(workspace, no_retries()), "go"))


def test_a_cited_line_with_the_right_text_is_verified_and_quoted_to_the_parent(
    fake_model: FakeAnthropic, workspace: Path
):
    reads_a_py(delegate(fake_model)).tool_use(
        "submit_note",
        conclusion="foo adds one to its argument.",
        evidence=['a.py:3 "def foo("', "a.py:4"],
        file_refs=["a.py"],
        confidence="high",
    )
    run(workspace)
    note = only_note(workspace)
    assert verdicts(note) == ["verified", "verified"]
    assert (note["confidence"], note["marks"], note["fixup_offered"]) == ("high", [], False)
    content = parent_result(fake_model)["content"]
    assert content.startswith("[subagent note · completed] foo adds one to its argument.")
    assert "Evidence (2/2 verified):\n" in content
    assert '- [verified] a.py:3 "def foo("\n    3 | def foo(x):\n' in content
    assert "- [verified] a.py:4\n    4 |     return x + 1\n" in content
    assert "Grounding: read a.py\n" in content
    assert len(content) < 3000
    assert len(child_bodies(fake_model)) == 2  # no fix-up turn for evidence that holds


def test_lines_past_the_end_and_a_missing_file_get_one_fix_up_turn_then_are_handed_in(
    fake_model: FakeAnthropic, workspace: Path
):
    child = reads_a_py(delegate(fake_model))
    bad = {"conclusion": "VALUE is set late.", "evidence": ["a.py:300", "missing.py:1"]}
    child.tool_use("submit_note", {**bad, "confidence": "high"})
    child.tool_use("submit_note", {**bad, "confidence": "high"})  # the fix-up changes nothing
    run(workspace)
    bodies = child_bodies(fake_model)
    assert len(bodies) == 3  # read, note, exactly one fix-up turn
    offered = last_user_text(bodies[2])
    assert offered.startswith(FIXUP_HEAD)
    assert "- [not found] a.py:300 — line 300 cited; a.py has 10 lines" in offered
    assert "- [not found] missing.py:1 — no such file: missing.py" in offered
    note = only_note(workspace)
    assert note["status"] == "completed"
    assert verdicts(note) == ["not found", "not found"]
    assert (note["confidence"], note["stated_confidence"]) == ("low", "high")
    assert note["marks"] == ["evidence 0/2 verified"]
    assert note["fixup_offered"] is True
    content = parent_result(fake_model)["content"]
    assert content.splitlines()[0] == (
        "[subagent note · completed · unverified: evidence 0/2 verified] VALUE is set late."
    )
    assert "Confidence: low (the subagent said high; lowered: evidence 0/2 verified)" in content


def test_the_fix_up_turn_can_correct_the_evidence(fake_model: FakeAnthropic, workspace: Path):
    child = reads_a_py(delegate(fake_model))
    child.tool_use("submit_note", conclusion="VALUE is 3.", evidence=["a.py:300 VALUE = 3"])
    child.tool_use(
        "submit_note", conclusion="VALUE is 3.", evidence=["a.py:10 — VALUE = 3"], confidence="high"
    )
    run(workspace)
    note = only_note(workspace)
    assert verdicts(note) == ["verified"]
    assert note["evidence"] == ["a.py:10 — VALUE = 3"]
    assert (note["confidence"], note["fixup_offered"]) == ("high", True)
    assert "    10 | VALUE = 3" in parent_result(fake_model)["content"]


def test_a_quoted_snippet_that_differs_is_marked_and_the_real_line_shown(
    fake_model: FakeAnthropic, workspace: Path
):
    child = reads_a_py(delegate(fake_model))
    note_input = {
        "conclusion": "foo subtracts one.",
        "evidence": ['a.py:4 "return x - 1"', "a.py:3"],
        "confidence": "medium",
    }
    child.tool_use("submit_note", note_input)
    child.text("I stand by my note.")  # the fix-up turn: prose, so the note stays as it was
    run(workspace)
    note = only_note(workspace)
    assert verdicts(note) == ["differs", "verified"]
    assert note["evidence_checks"][0]["detail"] == (
        "the cited text is not there; it is nowhere in the file"
    )
    content = parent_result(fake_model)["content"]
    assert (
        '- [differs] a.py:4 "return x - 1" — the cited text is not there; it is nowhere in the '
        "file\n    4 |     return x + 1\n"
    ) in content
    assert "Evidence (1/2 verified):" in content
    assert note["confidence"] == "medium"  # half verified is not "mostly unverified"


def test_a_command_cited_without_any_bash_call_is_not_checkable(
    fake_model: FakeAnthropic, workspace: Path
):
    child = reads_a_py(delegate(fake_model))
    claim = {"conclusion": "The tests pass.", "evidence": ["pytest -q → 3 passed"]}
    child.tool_use("submit_note", {**claim, "confidence": "high"})
    child.tool_use("submit_note", {**claim, "confidence": "high"})
    run(workspace)
    note = only_note(workspace)
    (check,) = note["evidence_checks"]
    assert (check["kind"], check["verdict"]) == ("command", "not checkable")
    assert check["detail"] == "this subagent ran no commands"
    assert last_user_text(child_bodies(fake_model)[2]).startswith(FIXUP_HEAD)
    assert note["confidence"] == "low"
    assert parent_result(fake_model)["content"].splitlines()[0] == (
        "[subagent note · completed · unverified: evidence 0/1 verified] The tests pass."
    )


def test_commands_are_matched_with_their_logged_outcome(fake_model: FakeAnthropic, workspace: Path):
    child = delegate(fake_model)
    child.tool_uses(("bash", {"command": "echo '3 passed in 0.01s'"}), text="Running.")
    child.tool_uses(("bash", {"command": "exit 3"}))
    evidence = [
        "`echo '3 passed in 0.01s'` → 3 passed",
        "ran `exit 3` (exit 0)",
        "$ exit 3: exit 3",
        "`make test` -> ok",
    ]
    child.tool_use("submit_note", conclusion="Mixed.", evidence=evidence)
    child.text("No changes.")
    asyncio.run(collect(make_agent(workspace, bypass(max_retries=0)), "go"))
    note = only_note(workspace)
    assert verdicts(note) == ["verified", "differs", "verified", "not checkable"]
    assert note["evidence_checks"][1]["detail"] == "it ran with exit 3, not “exit 0”"
    assert note["evidence_checks"][3]["detail"] == "this subagent never ran `make test`"
    assert note["figures"]["commands"] == [
        {"command": "echo '3 passed in 0.01s'", "outcome": "exit 0"},
        {"command": "exit 3", "outcome": "exit 3"},
    ]
    content = parent_result(fake_model)["content"]
    assert "    $ echo '3 passed in 0.01s' → exit 0\n    3 passed in 0.01s\n" in content
    assert "Grounding: ran `echo '3 passed in 0.01s'` → exit 0; `exit 3` → exit 3" in content


@pytest.mark.parametrize("how", ["submit_note", "json claiming completed"])
def test_no_tool_calls_caps_a_high_completed_note_at_low(
    fake_model: FakeAnthropic, workspace: Path, how: str
):
    child = delegate(fake_model)
    if how == "submit_note":
        child.tool_use(
            "submit_note", conclusion="Everything is fine.", evidence=["a.py:3"], confidence="high"
        )
    else:
        child.text(
            'All checked. {"status": "completed", "conclusion": "Everything is fine.", '
            '"evidence": ["a.py:3"], "confidence": "high", "tool_calls": 12}'
        )
    events = asyncio.run(collect(make_agent(workspace, no_retries()), "go"))
    note = only_note(workspace)
    assert (note["status"], note["confidence"], note["stated_confidence"]) == (
        "completed",
        "low",
        "high",
    )
    assert note["marks"] == ["no tool calls"]
    assert note["figures"]["tool_calls"] == 0
    content = parent_result(fake_model)["content"]
    assert content.splitlines()[0] == (
        "[subagent note · completed · unverified: no tool calls] Everything is fine."
    )
    assert "Confidence: low (the subagent said high; lowered: no tool calls)" in content
    (end,) = [e for e in events if isinstance(e, ToolEnd) and e.name == "task"]
    assert end.summary.startswith(
        "task investigate: completed, low confidence, evidence 1/1 verified (turns 1, tool calls 0,"
    )


def test_varied_citation_forms_and_extra_keys_in_a_json_note(
    fake_model: FakeAnthropic, workspace: Path
):
    note_json = (
        '{"conclusion": "foo is called by bar.", "evidence": ["a.py:3 — def foo(", '
        '"`a.py` line 7", "a.py#L3-L5", "line 6 of a.py: `def bar():`", "a.py:7 — foo(3)", '
        '"320 call sites"], "file_refs": ["a.py:6", "a.py#L99"], "confidence": "High", '
        '"reasoning": "read it", "status": "completed"}'
    )
    child = reads_a_py(delegate(fake_model))
    child.text(f"Here is my note:\n```json\n{note_json}\n```\nDone.")
    child.text("Keeping it.")  # the fix-up turn
    run(workspace)
    note = only_note(workspace)
    checks = note["evidence_checks"]
    assert [(c["verdict"], c["kind"]) for c in checks] == [
        ("verified", "location"),
        ("verified", "location"),
        ("verified", "location"),
        ("verified", "location"),
        ("differs", "location"),
    ]
    assert checks[2]["quote"] == ["3 | def foo(x):", "4 |     return x + 1", "… 1 more lines"]
    assert note["missing_refs"] == ["a.py#L99"]
    content = parent_result(fake_model)["content"]
    assert "- a.py#L99 (MISSING: line 99 cited; a.py has 10 lines)" in content
    assert "Evidence (4/5 verified):" in content


def test_a_symlink_out_of_the_workspace_is_not_read(fake_model: FakeAnthropic, tmp_path: Path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret.txt").write_text("TOP-SECRET-LINE\n")
    (workspace / "link.txt").symlink_to(tmp_path / "secret.txt")
    child = delegate(fake_model)
    child.tool_uses(("glob", {"pattern": "*"}), text="Looking.")
    child.tool_use(
        "submit_note",
        conclusion="Found it.",
        evidence=["link.txt:1", "../secret.txt:1"],
    )
    run(workspace)
    note = only_note(workspace)
    assert [(c["verdict"], c["detail"]) for c in note["evidence_checks"]] == [
        ("not checkable", "link.txt is outside the workspace"),
        ("not checkable", "../secret.txt is outside the workspace"),
    ]
    assert "TOP-SECRET-LINE" not in parent_result(fake_model)["content"]


def test_the_turn_limit_is_never_completed_even_with_a_note_in_its_text(
    fake_model: FakeAnthropic, workspace: Path
):
    child = delegate(fake_model)
    for _ in range(5):
        child.tool_uses(
            ("read_file", {"path": "a.py"}),
            text='{"conclusion": "All done.", "evidence": ["a.py:3"], "confidence": "high"}',
        )
    settings = Settings(max_retries=0, subagent={"max_turns": 2})
    asyncio.run(collect(make_agent(workspace, settings), "go"))
    note = only_note(workspace)
    assert (note["status"], note["conclusion"], note["confidence"]) == (
        "max_turns",
        "All done.",
        "low",
    )
    assert note["open_issues"] == [
        "cut off at the turn limit (2 model requests) before handing in a note"
    ]
    assert verdicts(note) == ["verified"]  # what it wrote is still checked
    content = parent_result(fake_model)["content"]
    assert content.startswith("[subagent note · max_turns] All done.")
    assert "Confidence: low (the subagent said high; lowered: the run ended max_turns)" in content


def test_cancelled_during_the_fix_up_keeps_the_handed_in_note_as_interrupted(
    fake_model: FakeAnthropic, workspace: Path
):
    child = reads_a_py(delegate(fake_model))
    child.tool_use("submit_note", conclusion="Found it.", evidence=["a.py:99"], confidence="high")
    child.text("never delivered", delay=2)
    # the third request is the fix-up turn's: cancel while its reply is on the way
    agent = make_agent(workspace, no_retries())
    asyncio.run(cancel_once_the_child_asked(agent, fake_model, requests=3))
    note = only_note(workspace)
    assert (note["status"], note["conclusion"], note["confidence"]) == (
        "interrupted",
        "Found it.",
        "low",
    )
    assert note["open_issues"] == [
        "cut off during the fix-up turn (interrupted): the note is as first handed in"
    ]
    assert verdicts(note) == ["not found"]


def test_evidence_items_given_as_objects_are_checked(fake_model: FakeAnthropic, workspace: Path):
    reads_a_py(delegate(fake_model)).tool_use(
        "submit_note",
        conclusion="foo is defined once.",
        evidence=[{"file": "a.py", "line": 3, "text": "def foo("}, {"file": "a.py", "line": 4}],
    )
    run(workspace)
    note = only_note(workspace)
    assert verdicts(note) == ["verified", "verified"]
    assert note["evidence_checks"][0]["quote"] == ["3 | def foo(x):"]
