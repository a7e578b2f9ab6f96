"""An episode is written on time the turn does not use (session/model_wait.py): never while the
turn works through its rounds, but while its request waits on a slow model, or after it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent_cli.core.settings.schema import Settings
from agent_cli.session import model_wait
from agent_cli.session.transcript import EpisodeRecord, MessageRecord, read_records
from tests.e2e.memory_support import (
    GENERATOR_MARK,
    drive,
    episode_json,
    generator_route,
    memory_agent,
)
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.usefixtures("sdk_env")

# long enough that an episode started at once would be sent in the middle of the turn
ROUNDS = 25
EVERY_ROUND = Settings.model_validate({"memory": {"episode_rounds": 1}})


def _kind(body: dict[str, object]) -> str:
    return "episode" if GENERATOR_MARK in json.dumps(body.get("system", "")) else "turn"


def _request_kinds(fake_model: FakeAnthropic) -> list[str]:
    return [_kind(body) for body in fake_model.bodies()]


def test_an_episode_waits_while_the_turn_works(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # no reply may count as slow here, however loaded the machine: only the turn's end opens
    monkeypatch.setattr(model_wait, "GRACE_S", 600.0)
    (tmp_path / "a.txt").write_text("a")
    for _ in range(ROUNDS):  # the threshold is met after the first round
        fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.text("read them")
    generator_route(fake_model).text(episode_json(title="Reading"))
    agent, memory = memory_agent(tmp_path, EVERY_ROUND)

    async def scenario() -> None:
        await drive(agent, memory, "read a.txt again and again")
        assert await memory.wait(30)
        await agent.client.close()

    asyncio.run(scenario())
    # the turn never waited on the model: the episode came after it
    assert _request_kinds(fake_model) == ["turn"] * (ROUNDS + 1) + ["episode"]
    (generator,) = [body for body in fake_model.bodies() if _kind(body) == "episode"]
    assert json.dumps(generator).count("[tool result]") == 1  # what was there when it was due


def test_an_episode_is_written_while_the_turn_waits_on_the_model(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.text("read it", delay=2.0)  # a slow model: the turn has nothing to do
    generator_route(fake_model).text(episode_json(title="Reading"))
    agent, memory = memory_agent(tmp_path, EVERY_ROUND)

    async def scenario() -> None:
        await drive(agent, memory, "read a.txt")
        assert await memory.wait(30)
        await agent.client.close()

    asyncio.run(scenario())
    assert _request_kinds(fake_model) == ["turn", "turn", "episode"]
    records = list(read_records(agent.session.paths.transcript(agent.session.id)))
    episode_at = next(i for i, r in enumerate(records) if isinstance(r, EpisodeRecord))
    final_at, final = [(i, r) for i, r in enumerate(records) if isinstance(r, MessageRecord)][-1]
    assert final.message["content"][0]["text"] == "read it"
    assert episode_at < final_at  # written before the slow reply came
