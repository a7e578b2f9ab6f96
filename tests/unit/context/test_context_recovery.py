"""The pipeline inside the loop: prompt-too-long recovery, the compact tool, /compact, resume."""

from __future__ import annotations

from pathlib import Path

from agent_cli.context.pipeline import build_pipeline
from agent_cli.core import errors
from agent_cli.core.events import CompactionDone, ErrorEvent, Event, TurnEnd
from agent_cli.core.messages import validate_request
from agent_cli.loop.agent import Agent
from agent_cli.session.resume import fold
from agent_cli.tools.compact import Compact
from agent_cli.tools.read_file import ReadFile
from agent_cli.tools.registry import ToolRegistry
from tests.unit.context.fakes import (
    PROMPT_TOO_LONG,
    FakeClient,
    make_session,
    request_body,
    run,
    tool_call,
    tool_round,
    user,
)


def make_agent(tmp_path: Path, client: FakeClient, rounds: int = 8) -> Agent:
    session = make_session(tmp_path)
    session.messages = [user("first request")]
    for n in range(rounds):
        session.messages += tool_round(f"old result {n}")
    session.messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
    registry = ToolRegistry([ReadFile(), Compact(session)])
    stages, compactor = build_pipeline(session)
    system = [{"type": "text", "text": "system"}]
    return Agent(session, client, registry, system, stages=stages, compactor=compactor)


def turn(agent: Agent, prompt: str) -> list[Event]:
    async def collect() -> list[Event]:
        return [e async for e in agent.run_turn(prompt)]

    return run(collect())


def callers(client: FakeClient) -> list[str]:
    return [r.caller for r in client.requests]


def assert_all_valid(client: FakeClient) -> None:
    for request in client.requests:
        assert validate_request(request_body(request.messages)) == []


def test_prompt_too_long_once_compacts_and_retries(tmp_path: Path):
    client = FakeClient([PROMPT_TOO_LONG, "SUMMARY", "done"])
    events = turn(make_agent(tmp_path, client), "next request")
    assert [e.stage for e in events if isinstance(e, CompactionDone)] == ["reactive"]
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].stop == "done"
    assert callers(client) == ["main", "summariser", "main"]
    retry = client.requests[2].messages
    assert len(retry) < len(client.requests[0].messages)
    assert "next request" in str(retry[-1])
    assert_all_valid(client)


def test_prompt_too_long_twice_in_a_row_ends_the_turn_with_a_clear_error(tmp_path: Path):
    client = FakeClient([PROMPT_TOO_LONG, "SUMMARY", PROMPT_TOO_LONG, "never sent"])
    events = turn(make_agent(tmp_path, client), "next request")
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert error.kind == "PromptTooLongError"
    assert error.exit_code == 1
    assert errors.TOO_LONG_HINT in error.message
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].stop == "error"
    assert callers(client) == ["main", "summariser", "main"]


def test_the_recovery_counter_resets_after_a_successful_call(tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    client = FakeClient(
        [
            PROMPT_TOO_LONG,
            "SUMMARY 1",
            [tool_call("read_file", path="a.txt")],
            PROMPT_TOO_LONG,
            "SUMMARY 2",
            "done",
        ]
    )
    events = turn(make_agent(tmp_path, client, rounds=12), "next request")
    assert [e.stage for e in events if isinstance(e, CompactionDone)] == ["reactive", "reactive"]
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].stop == "done"
    assert_all_valid(client)


def test_unrelated_errors_are_raised_without_compaction(tmp_path: Path):
    for failure in (
        errors.ModelError("API error 400: messages: bad field"),
        errors.OverloadedError("The model is overloaded (529) after retries"),
        errors.CredentialsError("The API refused the credentials (401)"),
    ):
        client = FakeClient([failure])
        events = turn(make_agent(tmp_path, client), "next request")
        assert not [e for e in events if isinstance(e, CompactionDone)]
        (error,) = [e for e in events if isinstance(e, ErrorEvent)]
        assert error.kind == type(failure).__name__
        assert callers(client) == ["main"]


def test_compact_tool_runs_after_every_result_of_its_round(tmp_path: Path):
    (tmp_path / "a.txt").write_text("alpha")
    calls = [tool_call("compact", focus="the parser"), tool_call("read_file", path="a.txt")]
    client = FakeClient([calls, "SUMMARY", "done"])
    agent = make_agent(tmp_path, client)
    events = turn(agent, "next request")
    assert [e.stage for e in events if isinstance(e, CompactionDone)] == ["compact"]
    assert callers(client) == ["main", "summariser", "main"]
    assert "the parser" in str(client.requests[1].messages)
    after = client.requests[2].messages
    assert after[1]["content"] == calls  # the round, verbatim, after the summary message
    results = after[2]["content"]
    assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls]
    assert "alpha" in results[1]["content"]
    assert agent.session.take_compaction_request() is None  # taken once, by the loop
    assert_all_valid(client)
    # resume rebuilds the live context from the newest compaction record onwards
    assert agent.session.transcript is not None
    assert fold(agent.session.transcript.path).messages == agent.session.messages


def test_slash_compact_between_turns(tmp_path: Path):
    client = FakeClient(["SUMMARY", "done"])
    agent = make_agent(tmp_path, client)

    async def compact() -> list[Event]:
        return [e async for e in agent.compact_now("keep the API notes")]

    events = run(compact())
    assert [e.stage for e in events if isinstance(e, CompactionDone)] == ["compact"]
    assert "keep the API notes" in str(client.requests[0].messages)
    turn(agent, "next request")
    (_, request) = client.requests
    assert [m["role"] for m in request.messages] == ["user"]
    assert "next request" in str(request.messages)
    assert_all_valid(client)
