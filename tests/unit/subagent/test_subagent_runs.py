"""Subagents in process, through the real SDK and the fake server: how each way of ending becomes
a note (handed in, JSON in prose, prose twice, turn limit, API failure, cancel), no nesting, the
shared gate, trimming, missing references and the parent's accounting.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.events import NoteAdded, SubagentProgress, ToolStart
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.prompts.system import build_system
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import AnyTool, Gate, ToolContext, ToolInput
from agent_cli.loop.agent import Agent
from agent_cli.model.call_log import CallLog
from agent_cli.runtime.build import make_client
from agent_cli.runtime.opening import open_session
from agent_cli.session.resume import fold
from agent_cli.subagent.note import UNPARSED
from agent_cli.subagent.runner import REASK, SubagentRunner
from agent_cli.subagent.store import NoteStore
from agent_cli.subagent.task import Task
from agent_cli.tools.read_file import ReadFile
from agent_cli.tools.registry import ToolRegistry
from agent_cli.tools.shell.bash import Bash
from tests.conftest import FAKE_API_KEY
from tests.e2e.agents import collect, make_agent
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import system_contains
from tests.fake_model.script import Script
from tests.sandbox_support import shell_wrapper
from tests.waiting import until

SUBAGENT = system_contains("You are a subagent")


pytestmark = pytest.mark.usefixtures("sdk_env")


def no_retries() -> Settings:
    """A failed call fails at once: the tests that script API errors see them unretried."""
    return Settings(max_retries=0)


def delegate(server: FakeAnthropic, prompt: str = "Investigate.") -> Script:
    """The parent calls task once, then answers; returns the subagent's script."""
    server.script.tool_use("task", description="investigate", prompt=prompt).text("ok")
    return server.route(SUBAGENT)


def parent_result(server: FakeAnthropic) -> dict[str, Any]:
    body = [b for b in server.bodies() if not SUBAGENT(b)][-1]
    (result,) = body["messages"][-1]["content"]
    assert result["type"] == "tool_result"
    return dict(result)


async def cancel_once_the_child_asked(agent: Agent, server: FakeAnthropic, requests: int) -> None:
    """Runs the parent's turn and cancels it once the subagent has sent `requests` requests."""
    task = asyncio.create_task(collect(agent, "go"))
    await until(lambda: len([b for b in server.bodies() if SUBAGENT(b)]) >= requests, 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def only_note(workspace: Path) -> dict[str, Any]:
    (note,) = NoteStore(Paths(workspace)).notes()
    return note.model_dump()


def test_json_note_in_prose_is_accepted_without_asking_again(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "x.py").write_text("x = 1\n")
    child = delegate(fake_model)
    child.tool_uses(("read_file", {"path": "x.py"}), text="Reading x.py.")
    child.text(
        'Done. {"conclusion": "All good", "evidence": ["x.py:1"], "confidence": "medium"} Bye.'
    )
    asyncio.run(collect(make_agent(tmp_path, no_retries()), "go"))
    note = only_note(tmp_path)
    assert (note["status"], note["conclusion"], note["confidence"]) == (
        "completed",
        "All good",
        "medium",
    )
    assert [c["verdict"] for c in note["evidence_checks"]] == ["verified"]
    assert len([b for b in fake_model.bodies() if SUBAGENT(b)]) == 2  # the read, then the note


def test_prose_twice_gives_the_unparsed_note(fake_model: FakeAnthropic, tmp_path: Path):
    delegate(fake_model).text("I looked around; it seems fine.").text("Really, it is fine.")
    asyncio.run(collect(make_agent(tmp_path, no_retries()), "go"))
    _first, second = [b for b in fake_model.bodies() if SUBAGENT(b)]
    assert second["messages"][-1]["content"][0]["text"] == REASK
    note = only_note(tmp_path)
    assert note["status"] == "completed"
    assert note["confidence"] == "low"
    assert note["conclusion"] == "Really, it is fine."
    assert note["open_issues"] == [UNPARSED]
    assert UNPARSED in parent_result(fake_model)["content"]


def test_asked_once_more_the_subagent_can_still_submit(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    child = delegate(fake_model)
    child.tool_uses(("read_file", {"path": "a.txt"}), text="Reading a.txt.")
    child.text("Prose only.")
    child.tool_use("submit_note", conclusion="Second try works", confidence="high")
    asyncio.run(collect(make_agent(tmp_path, no_retries()), "go"))
    note = only_note(tmp_path)
    assert (note["conclusion"], note["confidence"]) == ("Second try works", "high")


def test_turn_limit_gives_a_low_max_turns_note_with_its_last_text(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "a.txt").write_text("a")
    settings = Settings(max_retries=0, subagent={"max_turns": 3})
    child = delegate(fake_model)
    for n in range(1, 10):
        child.tool_uses(("read_file", {"path": "a.txt"}), text=f"still looking, step {n}")
    asyncio.run(collect(make_agent(tmp_path, settings), "go"))
    assert len([b for b in fake_model.bodies() if SUBAGENT(b)]) == 3
    note = only_note(tmp_path)
    assert note["status"] == "max_turns"
    assert note["confidence"] == "low"
    assert note["conclusion"] == "still looking, step 3"
    assert note["open_issues"] == [
        "cut off at the turn limit (3 model requests) before handing in a note"
    ]
    assert note["figures"]["turns"] == 3
    assert note["figures"]["tool_calls"] == 3
    result = parent_result(fake_model)
    assert result["is_error"] is True
    assert result["content"].startswith("[subagent note · max_turns] still looking, step 3")
    log = (tmp_path / note["log_path"]).read_text()
    assert log.count("[tool_result") == 3  # the last round's results too, though never sent


def test_api_failure_gives_an_error_note_from_the_work_done(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "a.txt").write_text("a")
    child = delegate(fake_model)
    child.tool_uses(("read_file", {"path": "a.txt"}), text="Reading a.txt first.")
    child.error(400, message="something broke upstream")
    events = asyncio.run(collect(make_agent(tmp_path, no_retries()), "go"))
    note = only_note(tmp_path)
    assert note["status"] == "error"
    assert note["confidence"] == "low"
    assert note["conclusion"] == "Reading a.txt first."
    assert "cut off by an API failure" in note["open_issues"][0]
    assert "something broke upstream" in note["open_issues"][0]
    assert [e.type for e in events][-1] == "turn_end"  # the parent's turn goes on
    assert events[-1].stop == "done"  # type: ignore[union-attr]


def test_a_subagent_calling_task_gets_an_unknown_tool_error(
    fake_model: FakeAnthropic, tmp_path: Path
):
    child = delegate(fake_model)
    child.tool_use("task", description="nested", prompt="go deeper")
    child.tool_use("submit_note", conclusion="could not nest")
    asyncio.run(collect(make_agent(tmp_path, no_retries()), "go"))
    second = [b for b in fake_model.bodies() if SUBAGENT(b)][1]
    (result,) = second["messages"][-1]["content"]
    assert result["is_error"] is True
    assert result["content"].startswith("Unknown tool 'task'.")
    assert only_note(tmp_path)["conclusion"] == "could not nest"


def test_overlong_note_is_trimmed_and_missing_refs_flagged(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "real.py").write_text("x = 1\n")
    long_conclusion = "The cause is " + "very " * 80 + "END-OF-CONCLUSION"
    delegate(fake_model).tool_use(
        "submit_note",
        conclusion=long_conclusion,
        evidence=[f"evidence {i}" for i in range(9)],
        file_refs=["real.py", "invented/path.py"],
    )
    asyncio.run(collect(make_agent(tmp_path, no_retries()), "go"))
    note = only_note(tmp_path)
    assert len(note["conclusion"]) == 200
    assert len(note["evidence"]) == 5
    assert note["file_refs"] == [note["log_path"], "real.py", "invented/path.py"]
    assert note["missing_refs"] == ["invented/path.py"]
    content = parent_result(fake_model)["content"]
    assert "invented/path.py (MISSING: no such file)" in content
    assert "- real.py\n" in content
    assert "END-OF-CONCLUSION" not in content
    assert "END-OF-CONCLUSION" in (tmp_path / note["log_path"]).read_text()


def test_usage_and_note_reach_the_parent_session_and_its_transcript(
    fake_model: FakeAnthropic, tmp_path: Path
):
    delegate(fake_model).tool_use(
        "submit_note", conclusion="done", usage={"input_tokens": 1000, "output_tokens": 77}
    )
    agent = make_agent(tmp_path, no_retries())
    events = asyncio.run(collect(agent, "go"))
    note = only_note(tmp_path)
    assert [e.note.id for e in events if isinstance(e, NoteAdded)] == [note["id"]]
    calls = [json.loads(x) for x in (tmp_path / "logs/llm-calls.jsonl").read_text().splitlines()]
    assert sorted(c["caller"] for c in calls) == ["main", "main", f"subagent:{note['id']}"]
    assert agent.session.usage.output_tokens == sum(c["output_tokens"] for c in calls)
    assert note["figures"]["output_tokens"] == 77
    restored = fold(agent.session.paths.transcript(agent.session.id))
    assert [n.id for n in restored.notes] == [note["id"]]
    assert restored.usage == agent.session.usage
    assert restored.calls == 3


class DenyBash:
    """A parent gate that refuses bash (as a permission policy or a hook would)."""

    async def before(self, tool: AnyTool, args: ToolInput, ctx: ToolContext) -> str | None:
        return "bash denied by policy" if tool.name == "bash" else None

    async def after(self, tool: AnyTool, args: ToolInput, result: Any, ctx: ToolContext) -> None:
        return None


_gate_checked: type[Gate] = DenyBash  # mypy: the fake is a Gate


def test_the_subagent_goes_through_the_parents_gate(fake_model: FakeAnthropic, tmp_path: Path):
    settings = Settings(max_retries=0)
    options = Options(workspace=tmp_path)
    session, _ = open_session(options, settings, Paths(tmp_path))
    client = make_client(settings, CallLog(None, None))
    store = NoteStore(session.paths)
    runner = SubagentRunner(parent=session, client=client, store=store, spawn=Agent)
    registry = ToolRegistry(
        [ReadFile(), Bash(shell_wrapper=shell_wrapper), Task(runner)], DenyBash()
    )
    runner.bind(registry)
    agent = Agent(session, client, registry, build_system(tmp_path, "system.md", []))
    child = delegate(fake_model)
    child.tool_use("bash", command="echo pwned > ../outside.txt")
    child.tool_use("submit_note", conclusion="was refused")
    asyncio.run(collect(agent, "go"))
    (result,) = [b for b in fake_model.bodies() if SUBAGENT(b)][1]["messages"][-1]["content"]
    assert result["is_error"] is True
    assert result["content"] == "bash denied by policy"
    assert not (tmp_path.parent / "outside.txt").exists()


def test_cancelling_the_parent_keeps_an_interrupted_note(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    child = delegate(fake_model)
    child.tool_uses(("read_file", {"path": "a.txt"}), text="Halfway there.")
    child.text("never delivered", delay=2)
    agent = make_agent(tmp_path, no_retries())
    # the child's second request is out: it waits on the delayed reply
    asyncio.run(cancel_once_the_child_asked(agent, fake_model, requests=2))
    note = only_note(tmp_path)
    assert note["status"] == "interrupted"
    assert note["confidence"] == "low"
    assert note["conclusion"] == "Halfway there."
    assert note["open_issues"] == ["cut off: the run was interrupted before handing in a note"]
    (result,) = agent.session.messages[-1]["content"]
    assert result["is_error"] is True
    assert "interrupted" in result["content"]
    assert "Halfway there." in (tmp_path / note["log_path"]).read_text()


def test_concurrency_is_bounded_by_the_setting(fake_model: FakeAnthropic, tmp_path: Path):
    settings = Settings(max_retries=0, subagent={"concurrency": 2})
    jobs = ("job-a", "job-b", "job-c")
    fake_model.script.tool_uses(
        *(("task", {"description": j, "prompt": f"Do {j}."}) for j in jobs)
    ).text("ok")
    fake_model.route(SUBAGENT).respond(
        lambda body: Script().tool_use("submit_note", conclusion="done", delay=0.5), times=3
    )
    asyncio.run(collect(make_agent(tmp_path, settings), "go"))
    arrivals = sorted(r.time for r in fake_model.requests if SUBAGENT(r.body))
    # the third can only start once one of the first two has had its 0.5 s reply (without the
    # bound all three arrive together)
    assert arrivals[2] - arrivals[0] >= 0.5
    assert [n.status for n in NoteStore(Paths(tmp_path)).notes()] == ["completed"] * 3


def test_secrets_never_reach_the_notes(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "env.txt").write_text(f"ANTHROPIC_API_KEY={FAKE_API_KEY}\n")
    child = delegate(fake_model, prompt=f"Is {FAKE_API_KEY} set in env.txt?")
    child.tool_uses(("read_file", {"path": "env.txt"}), text=f"The key is {FAKE_API_KEY}.")
    child.tool_use("submit_note", conclusion=f"Yes: {FAKE_API_KEY}", evidence=[FAKE_API_KEY])
    asyncio.run(collect(make_agent(tmp_path, no_retries()), "go"))
    notes = tmp_path / "notes"
    for path in notes.iterdir():
        if path.suffix != ".sqlite3":
            assert FAKE_API_KEY not in path.read_text(), path.name
    assert FAKE_API_KEY.encode() not in (notes / "index.sqlite3").read_bytes()
    assert "[redacted]" in only_note(tmp_path)["conclusion"]


def test_a_subagent_cannot_write_outside_the_workspace(fake_model: FakeAnthropic, tmp_path: Path):
    """Active once `write_file` exists (the tools issue): even in bypass mode, where nothing
    asks, the workspace rule refuses the subagent's write as it refuses the parent's."""
    pytest.importorskip("agent_cli.tools.write_file")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    settings = Settings(max_retries=0, permissions={"mode": "bypass"})
    child = delegate(fake_model)
    child.tool_use("write_file", path="../outside.txt", content="escaped")
    child.tool_use("submit_note", conclusion="was refused")
    asyncio.run(collect(make_agent(workspace, settings), "go"))
    (result,) = [b for b in fake_model.bodies() if SUBAGENT(b)][1]["messages"][-1]["content"]
    assert result["is_error"] is True
    assert not (tmp_path / "outside.txt").exists()


def test_the_parent_hears_the_subagents_tool_count_as_it_works(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "a.py").write_text("x = 1\n")
    child = delegate(fake_model)
    child.tool_use("read_file", path="a.py").tool_use("read_file", path="a.py")
    child.tool_use("submit_note", conclusion="x is 1")
    events = asyncio.run(collect(make_agent(tmp_path, no_retries()), "go"))
    (task_id,) = [e.id for e in events if isinstance(e, ToolStart) and e.name == "task"]
    progress = [e for e in events if isinstance(e, SubagentProgress)]
    assert [(e.id, e.tool_calls) for e in progress] == [(task_id, 1), (task_id, 2)]
    assert progress[0].elapsed_s <= progress[1].elapsed_s
    kinds = [type(e).__name__ for e in events]
    # the count comes while the task call runs, the note before its end
    assert kinds.index("SubagentProgress") < kinds.index("NoteAdded") < kinds.index("ToolEnd")
