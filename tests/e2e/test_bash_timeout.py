"""bash's timeout through the loop and the real SDK: fast return, no process left behind."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from agent_cli.build import build_agent, make_client, open_session
from agent_cli.events import ToolEnd, ToolStart
from agent_cli.model.call_log import CallLog
from agent_cli.options import Options
from agent_cli.paths import Paths
from agent_cli.settings import Settings
from tests.conftest import FAKE_API_KEY
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


def test_bash_timeout_kills_the_whole_group_quickly(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_model.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_API_KEY)
    command = "echo $$ > shell.pid; (sleep 30 &); sleep 30"
    fake_model.script.tool_use("bash", command=command, timeout_s=1).text("gave up")
    settings = Settings.model_validate({"permissions": {"mode": "bypass"}})
    options = Options(workspace=tmp_path)
    session, _ = open_session(options, settings, Paths(tmp_path))
    agent = build_agent(session, make_client(settings, CallLog(None, None)), options)

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
