"""Episodic memory in process: the real Agent, the real SDK, the fake model server."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from agent_cli.core.events import TurnEnd, WarningEvent
from agent_cli.core.settings.schema import Settings
from agent_cli.memory.episode_store import EpisodeStore
from agent_cli.memory.setup import listing
from agent_cli.session.transcript import EpisodeRecord, UsageRecord, read_records
from tests.e2e.memory_support import (
    TODOS_DONE,
    TODOS_OPEN,
    drive,
    episode_json,
    generator_bodies,
    generator_route,
    memory_agent,
    user_text,
)
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.usefixtures("sdk_env")


def script_todo_session(fake_model: FakeAnthropic, final: str = "Parser fixed.") -> None:
    fake_model.script.tool_use("todo_write", todos=TODOS_OPEN)
    fake_model.script.tool_use("read_file", path="src/x.py")
    fake_model.script.tool_use("todo_write", todos=TODOS_DONE).text(final)


def stored(tmp_path: Path) -> EpisodeStore:
    return EpisodeStore(tmp_path / "notes" / "index.sqlite3")


def test_all_completed_todos_write_an_episode(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x.py").write_text("def parse(text):\n    return text[0]  # marker-77\n")
    script_todo_session(fake_model)
    generator_route(fake_model).text(episode_json())
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> list:
        events = await drive(agent, memory, "fix the parser crash in src/x.py")
        assert await memory.wait(30)
        await agent.client.close()
        return events

    events = asyncio.run(scenario())
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "Parser fixed."
    (generator,) = generator_bodies(fake_model)
    assert "tools" not in generator
    text = user_text(generator)
    # the conversation since the last episode (here: the whole session), as data
    assert "fix the parser crash in src/x.py" in text
    assert "Add a regression test" in text  # a todo_write call
    assert "marker-77" in text  # a (shortened) tool result
    assert "<conversation>" in text
    (episode,) = stored(tmp_path).recent()
    assert episode.title == "Fix crash on empty input in parser"
    assert episode.session == agent.session.id
    assert episode.files() == ["src/x.py"]
    transcript = agent.session.transcript
    assert transcript is not None
    records = list(read_records(transcript.path))
    assert [r.episode["id"] for r in records if isinstance(r, EpisodeRecord)] == [episode.id]
    assert [r.caller for r in records if isinstance(r, UsageRecord)].count("episode") == 1


def test_todo_trigger_waits_for_the_rounds_results(fake_model: FakeAnthropic, tmp_path: Path):
    """The generator starts after the completing round, so it sees that round's result."""
    fake_model.script.tool_use("todo_write", todos=TODOS_DONE).text("all done")
    generator_route(fake_model).text(episode_json())
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> None:
        await drive(agent, memory, "do it")
        await memory.wait(30)
        await agent.client.close()

    asyncio.run(scenario())
    (generator,) = generator_bodies(fake_model)
    result_line = user_text(generator).split("[tool result]")[1]
    assert "(2/2 completed)" in result_line


def test_invalid_reply_is_retried_once_then_dropped(fake_model: FakeAnthropic, tmp_path: Path):
    script_todo_session(fake_model, final="Finished anyway.")
    route = generator_route(fake_model)
    route.text("Here is the summary you asked for, in prose.")
    route.text('{"title": "", "core_problem": 5}')
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> tuple[list, list]:
        events = await drive(agent, memory, "fix it")
        await memory.wait(30)
        later = await drive(agent, memory, "anything else?")
        await agent.client.close()
        return events, later

    fake_model.script.text("No.")
    events, later = asyncio.run(scenario())
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].stop == "done"
    assert events[-1].text == "Finished anyway."
    first, second = generator_bodies(fake_model)
    assert "tools" not in second
    assert user_text(second).startswith(user_text(first))  # the same input, then the fix
    assert second["messages"][1]["content"][0]["text"].startswith("Here is the summary")
    assert "no JSON object" in second["messages"][2]["content"][0]["text"]
    assert stored(tmp_path).recent() == []
    # the generation runs beside the turn: its warning comes with the turn it ends in, or, when it
    # ends between turns, with the next one; either way once
    warnings = [e.message for e in events + later if isinstance(e, WarningEvent)]
    assert sum("episode dropped" in w for w in warnings) == 1, warnings
    assert isinstance(later[-1], TurnEnd)
    assert later[-1].text == "No."


def test_invalid_reply_fixed_on_the_second_try(fake_model: FakeAnthropic, tmp_path: Path):
    script_todo_session(fake_model)
    route = generator_route(fake_model)
    route.text(episode_json(code_fingerprints=["src/x.py lines 3 to 9"]))
    route.text("```json\n" + episode_json(code_fingerprints=["src/x.py#L3-9"]) + "\n```")
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> None:
        await drive(agent, memory, "fix it")
        await memory.wait(30)
        await agent.client.close()

    asyncio.run(scenario())
    _, second = generator_bodies(fake_model)
    assert "code_fingerprints" in second["messages"][2]["content"][0]["text"]
    (episode,) = stored(tmp_path).recent()
    assert episode.code_fingerprints == ["src/x.py#L3-L9"]


def test_slow_generator_does_not_delay_the_turn(fake_model: FakeAnthropic, tmp_path: Path):
    script_todo_session(fake_model)
    generator_route(fake_model).text(episode_json(), delay=5)
    agent, memory = memory_agent(tmp_path)
    marks: dict[str, float] = {}

    async def scenario() -> None:
        start = time.monotonic()
        await drive(agent, memory, "fix it")
        marks["turn"] = time.monotonic() - start
        marks["stored_at_turn_end"] = len(stored(tmp_path).recent())
        assert memory.busy
        assert await memory.wait(30)
        marks["all"] = time.monotonic() - start
        await agent.client.close()

    asyncio.run(scenario())
    assert marks["stored_at_turn_end"] == 0
    assert marks["all"] >= 5  # the generator really took its 5 s ...
    assert marks["turn"] < 3.5, marks  # ... and the turn's final output did not wait for it
    assert len(stored(tmp_path).recent()) == 1


def test_api_failure_is_retried_once_at_the_next_trigger_point(
    fake_model: FakeAnthropic, tmp_path: Path
):
    script_todo_session(fake_model)
    route = generator_route(fake_model)
    route.error(400, message="bad gateway of the generator")
    route.text(episode_json(title="Retried episode"))
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> None:
        await drive(agent, memory, "fix it")
        await memory.wait(30)  # the pending retry runs at exit at the latest
        await agent.client.close()

    asyncio.run(scenario())
    _first, second = generator_bodies(fake_model)
    assert "fix it" in user_text(second)
    assert [e.title for e in stored(tmp_path).recent()] == ["Retried episode"]


def test_a_second_failure_drops_that_stretch(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("todo_write", todos=TODOS_DONE).text("one")
    route = generator_route(fake_model)
    route.error(400).error(400)
    route.text(episode_json(title="Later work"))
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> None:
        await drive(agent, memory, "first task")
        await memory.wait(30)  # fails, retries at exit, fails again: dropped
        fake_model.script.text("two")
        await drive(agent, memory, "second task")
        assert memory.remember()
        await memory.wait(30)
        await agent.client.close()

    asyncio.run(scenario())
    third = generator_bodies(fake_model)[2]
    assert "second task" in user_text(third)
    assert "first task" not in user_text(third)  # the dropped stretch is not sent again
    assert [e.title for e in stored(tmp_path).recent()] == ["Later work"]


def test_a_later_episode_revises_an_earlier_one(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("todo_write", todos=TODOS_DONE).text("one")
    route = generator_route(fake_model)
    route.text(episode_json(title="Parser fix, first pass"))
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> None:
        await drive(agent, memory, "fix the parser")
        await memory.wait(30)
        (first,) = stored(tmp_path).recent()
        route.text(episode_json(title="Parser fix, complete", revises=first.id, open_issues=[]))
        fake_model.script.text("also handled unicode")
        await drive(agent, memory, "handle unicode too")
        assert memory.remember()
        await memory.wait(30)
        await agent.client.close()

    asyncio.run(scenario())
    second_request = generator_bodies(fake_model)[1]
    text = user_text(second_request)
    assert "Parser fix, first pass" in text  # the previous episode is part of the input
    assert "handle unicode too" in text
    assert "fix the parser" not in text.split("<conversation>")[1]
    (episode,) = stored(tmp_path).recent()  # updated, not duplicated
    assert episode.title == "Parser fix, complete"
    assert episode.open_issues == []
    assert episode.updated >= episode.created


def test_user_saying_done_after_file_changes_triggers(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("write_file", path="src/x.py", content="x = 1\n").text("Changed.")
    fake_model.script.text("You're welcome.")
    generator_route(fake_model).text(episode_json())
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> int:
        await drive(agent, memory, "set x to 1 in src/x.py")
        before = len(generator_bodies(fake_model))
        await drive(agent, memory, "thanks, that works")
        await memory.wait(30)
        await agent.client.close()
        return before

    assert asyncio.run(scenario()) == 0
    (generator,) = generator_bodies(fake_model)
    conversation = user_text(generator).split("<conversation>")[1]
    assert "set x to 1" in conversation
    assert "thanks, that works" not in conversation  # the episode covers the finished work


def test_follow_up_on_the_same_work_does_not_trigger(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("write_file", path="src/x.py", content="x = 1\n").text("Changed.")
    fake_model.script.text("Sure.")
    agent, memory = memory_agent(tmp_path)

    async def scenario() -> None:
        await drive(agent, memory, "set x to 1 in src/x.py")
        await drive(agent, memory, "not quite: x in src/x.py should be 2")
        await memory.wait(30)
        await agent.client.close()

    asyncio.run(scenario())
    assert generator_bodies(fake_model) == []


def test_length_threshold_triggers(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    settings = Settings.model_validate({"memory": {"episode_rounds": 2}})
    for _ in range(2):
        fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.text("read twice")
    generator_route(fake_model).text(episode_json(title="Long stretch"))
    agent, memory = memory_agent(tmp_path, settings)

    async def scenario() -> None:
        await drive(agent, memory, "read a.txt twice")
        await memory.wait(30)
        await agent.client.close()

    asyncio.run(scenario())
    (generator,) = generator_bodies(fake_model)
    assert json.dumps(generator).count("[tool result]") == 2
    assert [e.title for e in stored(tmp_path).recent()] == ["Long stretch"]


def test_resumed_session_starts_after_its_last_episode(fake_model: FakeAnthropic, tmp_path: Path):
    fake_model.script.tool_use("todo_write", todos=TODOS_DONE).text("one")
    route = generator_route(fake_model)
    route.text(episode_json(title="First stretch"))
    agent, memory = memory_agent(tmp_path)

    async def first() -> None:
        await drive(agent, memory, "first stretch of work")
        await memory.wait(30)
        await agent.client.close()
        agent.session.release()  # as a run ends (Runtime.aclose): the next may resume it

    asyncio.run(first())
    fake_model.script.text("two")
    route.text(episode_json(title="Second stretch"))
    resumed, memory = memory_agent(tmp_path, resume=agent.session.id)
    assert resumed.session.id == agent.session.id
    assert "First stretch" not in resumed.system[0]["text"]  # only new sessions carry episodes

    async def second() -> None:
        await drive(resumed, memory, "second stretch of work")
        assert memory.remember()
        await memory.wait(30)
        await resumed.client.close()

    asyncio.run(second())
    conversation = user_text(generator_bodies(fake_model)[1]).split("<conversation>")[1]
    assert "second stretch of work" in conversation
    assert "first stretch of work" not in conversation
    titles = [e.title for e in stored(tmp_path).recent()]
    assert titles == ["Second stretch", "First stretch"]
    assert "Second stretch" in listing(resumed.session)
    new_agent, _ = memory_agent(tmp_path)
    assert "Second stretch" in new_agent.system[0]["text"]
