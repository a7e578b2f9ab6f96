"""`agent chat --continue / --resume` show the restored todos and notes; `agent chat` without a
terminal reads one message per line and prints plain text."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.files.paths import Paths
from agent_cli.core.payloads import Note
from agent_cli.session.transcript import (
    MessageRecord,
    NoteRecord,
    SessionRecord,
    TodosRecord,
    TranscriptWriter,
)
from tests.e2e.helpers import run_agent
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

SESSION = "20260101-120000-abcdef"
TODOS = [
    {"content": "Read the loop", "status": "completed", "active_form": "Reading the loop"},
    {"content": "Fix the retry", "status": "in_progress", "active_form": "Fixing the retry"},
    {"content": "Write a test", "status": "pending", "active_form": "Writing a test"},
]
NOTE = Note(
    id="n-7f3e",
    session_id=SESSION,
    description="find the retries",
    task="Where do retries happen?",
    status="completed",
    conclusion="Retries live in model/anthropic.py, not in the loop.",
    confidence="high",
    evidence=["model/anthropic.py:120"],
    log_path="notes/n-7f3e.log",
).model_dump(mode="json")


def write_session(workspace: Path) -> None:
    writer = TranscriptWriter(Paths(workspace).transcript(SESSION))
    writer.append(SessionRecord(id=SESSION, workspace=str(workspace), model="claude-sonnet-4-6"))
    writer.append(MessageRecord(message={"role": "user", "content": "plan the fix"}))
    writer.append(MessageRecord(message={"role": "assistant", "content": "Planned."}))
    writer.append(TodosRecord(todos=TODOS))
    writer.append(NoteRecord(note=NOTE))


def test_continue_shows_restored_todos_and_notes(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    write_session(tmp_path)
    term = ChatTerm(fake_env, tmp_path, "--continue")
    try:
        # the panel may be drawn over a few frames: wait until the whole of it is there
        screen = term.wait_for(lambda text: "Fixing the retry" in text and "Retries live" in text)
        assert f"Resumed session {SESSION}" in screen
        for line in ("Todos 1/3", "[x] Read the loop", "[>] Fixing the retry", "[ ] Write a test"):
            assert line in screen
        assert "Retries live in model/anthropic.py" in screen
        term.type("/notes n-7f")
        term.wait_for("- model/anthropic.py:120")
        fake_model.script.text("Continuing.")
        term.type("go on")
        term.wait_for("Continuing.")
        (body,) = fake_model.bodies()
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    finally:
        term.close()


def test_resume_by_prefix(fake_env: dict[str, str], tmp_path: Path):
    write_session(tmp_path)
    term = ChatTerm(fake_env, tmp_path, "--resume", SESSION[:12], columns=80, lines=30)
    try:
        # the panel may be drawn over a few frames: wait until the whole of it is there
        screen = term.wait_for(lambda text: "Fixing the retry" in text and "Retries live" in text)
        assert "--------" in screen  # under 100 columns the panel folds below
    finally:
        term.close()


def test_without_a_terminal_lines_are_messages(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("read_file", path="a.py").text("It prints hi.").text("welcome")
    (tmp_path / "a.py").write_text("print('hi')\n")
    proc = run_agent(
        fake_env, tmp_path, "chat", stdin="what does a.py do?\n/cost\n/bogus\nthanks\n"
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    unknown = next(n for n, line in enumerate(lines) if line.startswith("Unknown command"))
    known = (
        "Unknown command /bogus. Known: /help /todos /notes /compact /clear /sessions /resume "
        "/fork /context /model /memory /remember /think /plan /plans /permissions /auto-rules "
        "/bg /undo /rewind /diff /cost /rename /export /copy /add-dir /init /review /btw /vim "
        "/goal /jobs /lsp /mcp /commands /agents /skills /models /sandbox /exit"
    )  # the features' commands in the registry's order
    assert (
        lines
        == [
            "… read_file a.py",
            "✔ read_file a.py (1 line)",
            "  │      1      print('hi')",  # the preview of what it read
            "It prints hi.",
            *lines[4:unknown],  # /cost's table, as the cost extension's tests have it
            known,
            "welcome",
        ]
    )
    assert lines[4].split() == ["agent", "calls", "input", "read", "write", "output", "hit", "cost"]
    assert lines[5].split()[:2] == ["main", "2"]  # the two calls so far
    assert "Resume it with: agent chat --resume" in proc.stderr


def test_unknown_session_is_a_usage_error(fake_env: dict[str, str], tmp_path: Path):
    proc = run_agent(fake_env, tmp_path, "chat", "--resume", "nope", stdin="")
    assert proc.returncode == 2
    assert proc.stderr.startswith("agent: No session matches 'nope'")


def test_model_clear_and_resume_commands(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    write_session(tmp_path)
    fake_model.script.text("hello")
    stdin = "/model claude-haiku-4-5\nhi\n/clear\n/todos\n/resume 20260101\n/todos\n/memory\n"
    proc = run_agent(fake_env, tmp_path, "chat", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    (body,) = fake_model.bodies()
    assert body["model"] == "claude-haiku-4-5"
    lines = proc.stdout.splitlines()
    assert lines[0] == "Model: claude-haiku-4-5 (from the next request on, /clear keeps it)"
    assert lines[1].startswith("Note: switching the model changes the cached prompt prefix")
    assert lines[2] == "hello"
    assert lines[3].startswith("New session ")
    assert "(the previous one: --resume " in lines[3]
    assert lines[4:] == [
        "No todo list yet.",
        f"Resumed session {SESSION}.",
        "Todos 1/3",
        "[x] Read the loop",
        "[>] Fixing the retry",
        "[ ] Write a test",
        "No episodes yet.",
        "More: `agent memory show ID`, `agent memory search QUERY`.",
    ]
    assert f"--resume {SESSION}" in proc.stderr  # the session it ended in
