"""`run_turn` in process, through the real SDK: extension points, cancellation, thinking blocks."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from agent_cli.context.ports import Compacted, Guide, Stage, StageContext
from agent_cli.core.events import Event, ToolStart, TurnEnd
from agent_cli.core.messages import Block, Message
from agent_cli.core.tool_contract import ToolResult
from tests.e2e.agents import bypass, collect, make_agent
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli
from tests.waiting import until, wait_until


class PrefixStage:
    """A trivial stage: adds a marker message pair the first time it runs."""

    name = "marker"

    async def apply(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        if messages[0]["content"][0]["text"] == "stage-marker":
            return None
        head: list[Message] = [
            {"role": "user", "content": [{"type": "text", "text": "stage-marker"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "noted"}]},
        ]
        return Compacted(messages=head + messages, stage=self.name)


class CountingGuide:
    """A trivial guide: tells each request how many rounds have run."""

    def __init__(self) -> None:
        self.rounds = 0

    def guidance(self, messages: list[Message]) -> list[Block]:
        return [
            {"type": "text", "text": f"<system-reminder>rounds={self.rounds}</system-reminder>"}
        ]

    def after_round(self, calls: list[Block], results: list[ToolResult]) -> None:
        self.rounds += 1


_stage_checked: type[Stage] = PrefixStage  # mypy: the fakes are a Stage and a Guide
_guide_checked: type[Guide] = CountingGuide


@pytest.mark.usefixtures("sdk_env")
def test_stage_rewrites_history_and_guide_stays_out_of_it(
    fake_model: FakeAnthropic, tmp_path: Path
):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_use("read_file", path="a.txt").text("done")
    agent = make_agent(tmp_path, bypass())
    guide = CountingGuide()
    agent.stages, agent.guides = [PrefixStage()], [guide]
    events = asyncio.run(collect(agent, "hello"))
    assert [e.stage for e in events if e.type == "compaction"] == ["marker"]
    first, second = fake_model.bodies()
    assert first["messages"][0]["content"][0]["text"] == "stage-marker"
    assert (
        first["messages"][-1]["content"][-1]["text"]
        == "<system-reminder>rounds=0</system-reminder>"
    )
    assert (
        second["messages"][-1]["content"][-1]["text"]
        == "<system-reminder>rounds=1</system-reminder>"
    )
    # the guidance of the first request is gone from the second: never stored
    assert "rounds=0" not in json.dumps(second)
    transcript = agent.session.transcript
    assert transcript is not None
    assert "system-reminder" not in transcript.path.read_text()
    assert "stage-marker" in transcript.path.read_text()


@pytest.mark.usefixtures("sdk_env")
def test_thinking_blocks_keep_their_signature(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.reply(
        blocks=[
            {"type": "thinking", "thinking": "let me look", "signature": "sig-123"},
            {"type": "tool_use", "name": "read_file", "input": {"path": "a.txt"}},
        ]
    ).text("done")
    asyncio.run(collect(make_agent(tmp_path, bypass()), "think"))
    assistant = fake_model.bodies()[1]["messages"][1]
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "let me look",
        "signature": "sig-123",
    }


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.usefixtures("sdk_env", "sandbox_off")  # `echo $$` inside is the namespace's pid
def test_cancelled_turn_kills_tools_and_resumes_validly(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_uses(
        ("read_file", {"path": "a.txt"}),
        ("bash", {"command": "echo $$ > pid.txt; sleep 30"}),
    )
    (tmp_path / "a.txt").write_text("a")
    agent = make_agent(tmp_path, bypass())
    pid_file = tmp_path / "pid.txt"

    async def cancel_during_bash() -> list[Event]:
        seen: list[Event] = []

        async def consume() -> None:
            async for event in agent.run_turn("start"):
                seen.append(event)

        task = asyncio.create_task(consume())

        # the whole line written: the shell is running and `sleep 30` is what it waits on; and
        # its tool_start has reached this consumer (events are handed over between awaits)
        def running() -> bool:
            started = any(isinstance(e, ToolStart) and e.name == "bash" for e in seen)
            return started and pid_file.exists() and pid_file.read_text().endswith("\n")

        await until(running, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await agent.client.close()
        return seen

    started = time.monotonic()
    seen = asyncio.run(cancel_during_bash())
    assert time.monotonic() - started < 10
    assert any(isinstance(e, ToolStart) and e.name == "bash" for e in seen)
    assert not any(isinstance(e, TurnEnd) for e in seen)
    pid = int(pid_file.read_text())
    wait_until(lambda: not _alive(pid), 5, f"bash (pid {pid}) killed by the cancel")
    last = agent.session.messages[-1]
    read_result, bash_result = last["content"]
    assert read_result["is_error"] is not True if "is_error" in read_result else True
    assert "interrupted" in bash_result["content"]
    assert bash_result["is_error"] is True

    fake_model.script.text("resumed fine")
    proc = run_cli(fake_env, tmp_path, "run", "--continue", "-p", "next")
    assert proc.returncode == 0, proc.stderr
    resumed = fake_model.bodies()[-1]["messages"]
    assert [m["role"] for m in resumed] == ["user", "assistant", "user"]
    assert resumed[-1]["content"][-1]["text"] == "next"
