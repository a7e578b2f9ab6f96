"""The acceptance scenario of `agent chat` (issue 7): the model writes a todo list, delegates to a
subagent with `task`, updates the list and answers; the screen shows the todo marks, the note's
conclusion and the answer.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import first_user_contains

SUB_PROMPT = "SUBAGENT-PROBE: find where API retries are configured and report back."
CONCLUSION = "Retries come from the SDK's max_retries, set in model/anthropic.py."
ANSWER = "Retries are the SDK's job; the loop only retries broken streams."


def plan(first: str, second: str) -> list[dict[str, str]]:
    return [
        {"content": "Find the retry code", "status": first, "active_form": "Finding it"},
        {"content": "Explain retries", "status": second, "active_form": "Explaining retries"},
    ]


def test_todos_note_and_answer_on_screen(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    # the note's evidence is checked against the workspace and
    # against what the subagent read (unread or missing evidence lowers its confidence), so the
    # workspace holds what the subagent cites and the subagent reads it first
    source = tmp_path / "agent_cli" / "model" / "anthropic.py"
    source.parent.mkdir(parents=True)
    source.write_text("client = AsyncAnthropic(max_retries=4)\n")
    sub = fake_model.route(first_user_contains("SUBAGENT-PROBE"))
    sub.tool_use("read_file", path="agent_cli/model/anthropic.py").tool_use(
        "submit_note",
        conclusion=CONCLUSION,
        evidence=["agent_cli/model/anthropic.py: max_retries"],
        file_refs=[],
        open_issues=[],
        confidence="high",
    ).text("Note submitted.")
    main = fake_model.script
    main.tool_use("todo_write", todos=plan("in_progress", "pending"))
    main.tool_use("task", description="find retries", prompt=SUB_PROMPT)
    main.tool_use("todo_write", todos=plan("completed", "in_progress"))
    main.text(ANSWER)

    term = ChatTerm(fake_env, tmp_path, "--permission-mode", "bypass")
    try:
        term.wait_for("you>")
        term.type("how do retries work here?")
        screen = term.wait_for(ANSWER, timeout=45)
        screen = term.wait_idle()
        assert "Todos 1/2" in screen
        assert "[x] Find the retry code" in screen
        assert "[>] Explaining retries" in screen  # the in-progress item by its active_form
        assert "Retries come from the SDK's max_retries" in screen  # the note, in the panel
        term.type("/todos")
        term.wait_for("Todos 1/2\n[x] Find the retry code")
        term.type("/notes")
        term.wait_for("(high confidence, completed)")
    finally:
        term.close()
