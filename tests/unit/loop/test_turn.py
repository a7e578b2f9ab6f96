"""One turn of `Agent.run_turn` in process, against the fake model through the real SDK (every
request checked against SPEC §16 there): what a turn yields and stores, how tool rounds answer
every call in the order asked, and where a turn stops (done, a limit, an error)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent_cli.core.events import (
    ErrorEvent,
    Event,
    TextDelta,
    ToolEnd,
    ToolStart,
    TurnEnd,
    UsageUpdate,
)
from agent_cli.loop.rounds import CUT_OFF
from agent_cli.loop.turn_state import CONTINUE_PROMPT
from tests.e2e.agents import bypass, collect, make_agent
from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.usefixtures("sdk_env")


def turn(workspace: Path, prompt: str, **settings: object) -> tuple[list[Event], list[dict]]:
    """One turn of a fresh agent: its events and the session's messages afterwards."""
    agent = make_agent(workspace, bypass(**settings))
    events = asyncio.run(collect(agent, prompt))
    return events, agent.session.messages


def test_a_text_answer_streams_then_ends_the_turn(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.text("Hello from the model.")
    events, messages = turn(tmp_path, "say hello")
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == "Hello from the model."
    assert [e.caller for e in events if isinstance(e, UsageUpdate)] == ["main"]
    end = events[-1]
    assert isinstance(end, TurnEnd)
    assert (end.stop, end.text, end.rounds) == ("done", "Hello from the model.", 1)
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == [{"type": "text", "text": "say hello"}]


def test_a_round_answers_every_call_in_the_order_asked(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("before\n")
    fake_model.script.tool_uses(
        ("read_file", {"path": "a.txt"}),
        ("write_file", {"path": "a.txt", "content": "after\n"}),
        ("read_file", {"path": "a.txt"}),
    ).text("done")
    events, _ = turn(tmp_path, "change it")
    first, second = fake_model.bodies()
    uses = [b for b in second["messages"][1]["content"] if b["type"] == "tool_use"]
    results = last_user_blocks(second)
    assert [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    # the write ran alone, between the reads: the second read sees what it wrote
    assert "before" in results[0]["content"]
    assert "after" in results[2]["content"]
    assert "before" not in results[2]["content"]
    starts = [e.id for e in events if isinstance(e, ToolStart)]
    ends = [e.id for e in events if isinstance(e, ToolEnd)]
    assert sorted(starts) == sorted(ends) == sorted(u["id"] for u in uses)
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].rounds == 2
    assert first["tools"] == second["tools"]


def test_text_before_a_tool_round_is_not_the_turns_answer(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_uses(("read_file", {"path": "a.txt"}), text="Let me look.")
    fake_model.script.text("It says a.")
    events, messages = turn(tmp_path, "what is in a.txt?")
    end = events[-1]
    assert isinstance(end, TurnEnd)
    assert end.text == "It says a."
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]


def test_max_tokens_continues_as_often_as_the_settings_allow(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.text("one,", stop_reason="max_tokens").text(" two,", stop_reason="max_tokens")
    events, _ = turn(tmp_path, "write", max_continuations=1)
    assert len(fake_model.bodies()) == 2  # one continuation, then the turn ends as it stands
    assert last_user_blocks(fake_model.bodies()[1])[0]["text"] == CONTINUE_PROMPT
    end = events[-1]
    assert isinstance(end, TurnEnd)
    assert (end.stop, end.text) == ("done", "one, two,")


def test_a_call_cut_off_by_the_output_limit_is_answered_not_run(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.tool_uses(
        ("read_file", {"path": "a.txt"}),
        ("write_file", {"path": "big.txt", "content": "half"}),
        stop_reason="max_tokens",
    ).text("in parts then")
    (tmp_path / "a.txt").write_text("a")
    turn(tmp_path, "write it")
    read, cut = last_user_blocks(fake_model.bodies()[1])
    assert "is_error" not in read or read["is_error"] is False  # the complete call ran
    assert cut["is_error"] is True
    assert cut["content"] == CUT_OFF
    assert not (tmp_path / "big.txt").exists()


def test_a_call_whose_input_is_not_json_is_answered_not_run(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.reply(
        [{"type": "tool_use", "name": "write_file", "input": '{"path": "x.txt", "content": '}]
    ).text("I will send valid JSON")
    events, _ = turn(tmp_path, "write")
    (result,) = last_user_blocks(fake_model.bodies()[1])
    assert result["is_error"] is True
    assert "not valid JSON" in result["content"]
    assert not (tmp_path / "x.txt").exists()
    (end,) = [e for e in events if isinstance(e, ToolEnd)]
    assert end.is_error


def test_the_turn_limit_stops_before_another_request(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    for _ in range(3):
        fake_model.script.tool_use("read_file", path="a.txt")
    agent = make_agent(tmp_path, bypass())
    agent.max_turns = 2
    events = asyncio.run(collect(agent, "loop"))
    assert len(fake_model.bodies()) == 2
    error, end = events[-2:]
    assert isinstance(error, ErrorEvent)
    assert error.kind == "MaxTurnsError"
    assert error.exit_code == 1
    assert "--max-turns 2" in error.message
    assert isinstance(end, TurnEnd)
    assert (end.stop, end.rounds) == ("max_turns", 2)
    # every call of the last round has its result: the next turn's request is valid
    assert agent.session.messages[-1]["content"][0]["type"] == "tool_result"


def test_an_api_error_ends_the_turn_and_the_next_turn_goes_on(
    fake_model: FakeAnthropic, tmp_path: Path
):
    fake_model.script.error(400, message="the request was refused").text("fine now")
    agent = make_agent(tmp_path, bypass())

    async def two_turns() -> tuple[list[Event], list[Event]]:
        try:
            failed = [e async for e in agent.run_turn("first")]
            return failed, [e async for e in agent.run_turn("second")]
        finally:
            await agent.client.close()

    failed, second = asyncio.run(two_turns())
    (error,) = [e for e in failed if isinstance(e, ErrorEvent)]
    assert "the request was refused" in error.message
    assert error.exit_code == 1
    assert isinstance(failed[-1], TurnEnd)
    assert failed[-1].stop == "error"
    assert isinstance(second[-1], TurnEnd)
    assert second[-1].text == "fine now"
    sent = fake_model.bodies()[-1]["messages"]  # both prompts, one user turn (roles alternate)
    assert [m["role"] for m in sent] == ["user"]
    assert "first" in json.dumps(sent)
    assert "second" in json.dumps(sent)


def test_stop_after_round_ends_the_turn_once_the_round_is_answered(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_use("read_file", path="a.txt").text("never asked")
    agent = make_agent(tmp_path, bypass())
    agent.stop_after_round = lambda: True
    events = asyncio.run(collect(agent, "go"))
    assert len(fake_model.bodies()) == 1
    end = events[-1]
    assert isinstance(end, TurnEnd)
    assert (end.stop, end.rounds) == ("done", 1)
    assert agent.session.messages[-1]["content"][0]["type"] == "tool_result"
