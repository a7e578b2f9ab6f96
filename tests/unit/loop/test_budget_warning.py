"""A budget you can see coming (issue 53): once 80 % of `--max-cost` is spent, the turn says
so, once, before its next request; the requests still go while they fit. In process against
the fake model, its usage scripted so the first call spends 83 % of a $1 budget."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_cli.core.events import WarningEvent
from tests.e2e.agents import bypass, collect, make_agent
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.usefixtures("sdk_env")
# $0.825 of cache writes at claude-sonnet-4-5's price; read back next time for about $0.07
WRITES = {"input_tokens": 10, "cache_creation_input_tokens": 220_000, "output_tokens": 10}


def test_eighty_percent_of_the_budget_is_said_once(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    script = fake_model.script.tool_use("read_file", path="a.txt", usage=WRITES)
    script.tool_use("read_file", path="a.txt").text("done")
    settings = bypass(model="claude-sonnet-4-5", budget={"max_cost_usd": 1.0})
    events = asyncio.run(collect(make_agent(tmp_path, settings), "go"))
    assert len(fake_model.bodies()) == 3  # each request fitted the budget
    warnings = [e.message for e in events if isinstance(e, WarningEvent)]
    assert warnings == ["83% of the budget spent: $0.83 of --max-cost 1"]


def test_under_eighty_percent_nothing_is_said(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_use("read_file", path="a.txt", usage=WRITES).text("done")
    settings = bypass(model="claude-sonnet-4-5", budget={"max_cost_usd": 1.1})
    events = asyncio.run(collect(make_agent(tmp_path, settings), "go"))
    assert len(fake_model.bodies()) == 2
    assert not [e for e in events if isinstance(e, WarningEvent)]
