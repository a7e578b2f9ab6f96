"""todo_write and its reminder end to end: real SDK, fake server, checks on recorded requests.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.events import Event, TodosUpdated
from agent_cli.loop.agent import Agent
from tests.e2e.agents import collect, make_agent
from tests.e2e.helpers import json_lines
from tests.e2e.memory_support import episode_json, generator_route
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

MARK = "<system-reminder>"
PLAN = [
    {"content": "Read a.txt", "status": "completed"},
    {"content": "Read b.txt", "status": "in_progress", "active_form": "Reading b.txt"},
    {"content": "Summarise", "status": "pending"},
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(f"content of {name}\n")
    return tmp_path


def run(agent: Agent, prompt: str) -> list[Event]:
    return asyncio.run(collect(agent, prompt))


def reminder_blocks(body: dict[str, Any]) -> list[tuple[int, int]]:
    """(message index, block index) of every text block holding the reminder."""
    found = []
    for m, message in enumerate(body["messages"]):
        content = message["content"]
        for b, block in enumerate(content if isinstance(content, list) else []):
            if block.get("type") == "text" and MARK in block.get("text", ""):
                found.append((m, b))
    return found


def reminder_counts(fake_model: FakeAnthropic) -> list[int]:
    # a request cut short has no body to hold a reminder: the background episode's, when the
    # run ends while it is still being sent (CI, once)
    whole = [r.body for r in fake_model.requests if r.complete and r.path == "/v1/messages"]
    return [len(reminder_blocks(body)) for body in whole]


def assert_reminder_after_results(body: dict[str, Any]) -> None:
    (where,) = reminder_blocks(body)
    last = body["messages"][-1]
    assert where == (len(body["messages"]) - 1, len(last["content"]) - 1)
    kinds = [b["type"] for b in last["content"]]
    assert kinds[:-1] == ["tool_result"] * (len(kinds) - 1)
    assert "todo_write" in last["content"][-1]["text"]


def test_reminder_on_the_fifth_request_only_and_never_stored(
    fake_model: FakeAnthropic, fake_env: dict[str, str], workspace: Path
):
    fake_model.script.tool_use("todo_write", todos=PLAN)
    for name in ("a.txt", "b.txt", "c.txt", "a.txt"):
        fake_model.script.tool_use("read_file", path=name)
    fake_model.script.text("all read")
    args = ("run", "-p", "read files", "--output-format", "stream-json")
    proc = run_cli(fake_env, workspace, *args)
    assert proc.returncode == 0, proc.stderr
    bodies = fake_model.bodies()
    assert "todo_write" in [tool["name"] for tool in bodies[0]["tools"]]
    assert "# Planning with todo_write" in bodies[0]["system"][0]["text"]
    assert reminder_counts(fake_model) == [0, 0, 0, 0, 1, 0]
    assert_reminder_after_results(bodies[4])
    assert (
        "[x] Read a.txt\n[>] Read b.txt\n[ ] Summarise\n(1/3 completed)"
        in (bodies[4]["messages"][-1]["content"][-1]["text"])
    )
    # no later request holds it anywhere, and the transcript never did
    assert MARK not in json.dumps(bodies[5])
    session_id = json_lines(proc.stdout)[0]["session_id"]
    transcript = (workspace / ".transcripts" / f"{session_id}.jsonl").read_text()
    assert "system-reminder" not in transcript
    # the model read the whole list and its snapshot; the UI got the list as an event
    result = bodies[1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    assert result["content"].startswith("[x] Read a.txt\n[>] Read b.txt\n[ ] Summarise\n")
    assert result["content"].endswith(json.dumps({"todos": PLAN}, separators=(",", ":")))
    events = json_lines(proc.stdout)
    assert [e["todos"] for e in events if e["type"] == "todos"] == [PLAN]
    records = [json.loads(line) for line in transcript.splitlines()]
    assert [r["todos"] for r in records if r["type"] == "todos"] == [PLAN]


@pytest.mark.usefixtures("sdk_env")
def test_failed_todo_write_in_the_middle_still_reminds_on_schedule(
    fake_model: FakeAnthropic, workspace: Path
):
    bad = [{"content": "Read a.txt", "status": "in_progress"}, {"content": "  ", "status": "x"}]
    fake_model.script.tool_use("todo_write", todos=PLAN)
    fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.tool_use("todo_write", todos=bad)
    fake_model.script.tool_use("read_file", path="b.txt")
    fake_model.script.tool_use("read_file", path="c.txt").text("done")
    agent = make_agent(workspace)
    events = run(agent, "go")
    assert reminder_counts(fake_model) == [0, 0, 0, 0, 1, 0]
    bodies = fake_model.bodies()
    assert_reminder_after_results(bodies[4])
    refused = bodies[3]["messages"][-1]["content"][0]
    assert refused["is_error"] is True
    assert "item 2: content is empty after trimming" in refused["content"]
    assert "item 2: status 'x' is not one of pending, in_progress, completed" in refused["content"]
    assert agent.session.todos.as_dicts() == PLAN
    assert [[t.as_dict() for t in e.todos] for e in events if isinstance(e, TodosUpdated)] == [PLAN]


@pytest.mark.usefixtures("sdk_env")
def test_a_round_of_three_reads_counts_once(fake_model: FakeAnthropic, workspace: Path):
    reads = [("read_file", {"path": n}) for n in ("a.txt", "b.txt", "c.txt")]
    fake_model.script.tool_use("todo_write", todos=PLAN)
    fake_model.script.tool_uses(*reads)
    fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.tool_use("read_file", path="b.txt").text("done")
    run(make_agent(workspace), "go")
    assert reminder_counts(fake_model) == [0, 0, 0, 0, 1]
    assert_reminder_after_results(fake_model.bodies()[4])


@pytest.mark.usefixtures("sdk_env")
@pytest.mark.parametrize(
    "first", [None, [{"content": "Read a.txt", "status": "completed"}]], ids=["no-list", "done"]
)
def test_no_reminder_without_unfinished_items(
    fake_model: FakeAnthropic, workspace: Path, first: list[dict[str, str]] | None
):
    # a finished list starts an episode in the background: its tool-less call has its own script
    generator_route(fake_model).respond(lambda body: episode_json(), times=3)
    if first is not None:
        fake_model.script.tool_use("todo_write", todos=first)
    for _ in range(5):
        fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.text("done")
    run(make_agent(workspace), "go")
    assert sum(reminder_counts(fake_model)) == 0
    main_requests = [b for b in fake_model.bodies() if b.get("tools")]
    assert len(main_requests) == 6 + (first is not None)


@pytest.mark.usefixtures("sdk_env")
def test_two_sessions_in_one_process_do_not_share_the_list(workspace: Path):
    first, second = make_agent(workspace), make_agent(workspace)
    assert first.session.todos is not second.session.todos

    async def write() -> None:
        result = await first.registry.dispatch(
            "todo_write", {"todos": PLAN}, first.session.tool_ctx
        )
        assert not result.is_error, result.content
        await first.client.close()
        await second.client.close()

    asyncio.run(write())
    assert first.session.todos.as_dicts() == PLAN
    assert second.session.todos.items == ()
    assert first.session.view_providers[0]().startswith("# Current todo list\n[x] Read a.txt")
    assert second.session.view_providers[0]() == ""


def test_resume_restores_the_list(
    fake_model: FakeAnthropic, fake_env: dict[str, str], workspace: Path
):
    fake_model.script.tool_use("todo_write", todos=PLAN).text("planned")
    proc = run_cli(fake_env, workspace, "run", "-p", "plan", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    session_id = json.loads(proc.stdout)["session_id"]

    shown = run_cli(fake_env, workspace, "sessions", "show", session_id[:12])
    assert shown.returncode == 0, shown.stderr
    assert "todos:\n  [x] Read a.txt\n  [>] Read b.txt\n  [ ] Summarise\n" in shown.stdout

    # the resumed session knows the unfinished list: three reads later it reminds, listing it
    for name in ("a.txt", "b.txt", "c.txt"):
        fake_model.script.tool_use("read_file", path=name)
    fake_model.script.text("resumed")
    proc = run_cli(fake_env, workspace, "run", "--resume", session_id, "-p", "go on")
    assert proc.returncode == 0, proc.stderr
    resumed = fake_model.bodies()[2:]
    assert [len(reminder_blocks(b)) for b in resumed] == [0, 0, 0, 1]
    reminder = resumed[3]["messages"][-1]["content"][-1]["text"]
    assert "[x] Read a.txt\n[>] Read b.txt\n[ ] Summarise\n(1/3 completed)" in reminder
