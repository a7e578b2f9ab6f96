"""bash's timeout through the loop and the real SDK: fast return, no process left behind."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from agent_cli.core.events import ToolEnd, ToolStart
from tests.e2e.agents import bypass, make_agent
from tests.fake_model import FakeAnthropic


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is `pgid` (zombies count as gone)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            found.append(int(stat.parent.name))
    return found


# the tests read pids and process groups a command prints: inside the sandbox those are the
# pid namespace's, and signalling them on the host would hit unrelated processes
pytestmark = pytest.mark.usefixtures("sandbox_off")


@pytest.mark.usefixtures("sdk_env")
def test_bash_timeout_kills_the_whole_group_quickly(fake_model: FakeAnthropic, tmp_path: Path):
    command = "echo $$ > shell.pid; (sleep 30 &); sleep 30"
    fake_model.script.tool_use("bash", command=command, timeout_s=1).text("gave up")
    agent = make_agent(tmp_path, bypass())

    async def timed() -> dict[str, float]:
        stamps: dict[str, float] = {}
        try:
            async for event in agent.run_turn("sleep"):
                if isinstance(event, ToolStart | ToolEnd):
                    stamps[event.type] = time.monotonic()
        finally:
            await agent.client.close()
        return stamps

    stamps = asyncio.run(timed())
    took = stamps["tool_end"] - stamps["tool_start"]
    assert took < 3, f"bash with timeout_s=1 took {took:.2f} s"
    pgid = int((tmp_path / "shell.pid").read_text())
    assert group_members(pgid) == []
    result = fake_model.bodies()[-1]["messages"][-1]["content"][0]
    assert result["is_error"] is True
    assert "timed out after 1 s" in result["content"]
