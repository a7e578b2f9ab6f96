"""A subagent's spend while it runs (issue 53): each progress event the parent hears carries
what the subagent's calls cost so far, at its model's price; none for a model without one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_cli.core.events import SubagentProgress
from agent_cli.core.settings.schema import Settings
from tests.e2e.agents import collect, make_agent
from tests.fake_model import FakeAnthropic
from tests.unit.subagent.test_subagent_runs import delegate

pytestmark = pytest.mark.usefixtures("sdk_env")
MILLION_IN = {"input_tokens": 1_000_000, "output_tokens": 0, "cache_read_input_tokens": 0,
              "cache_creation_input_tokens": 0}  # $3 at claude-sonnet-4-5's price  # fmt: skip


def test_the_parent_hears_what_the_subagent_spent_so_far(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    child = delegate(fake_model)
    child.tool_use("read_file", path="a.py", usage=MILLION_IN)
    child.tool_use("read_file", path="a.py", usage=MILLION_IN)
    child.tool_use("submit_note", conclusion="x is 1")
    settings = Settings(max_retries=0, model="claude-sonnet-4-5")
    events = asyncio.run(collect(make_agent(tmp_path, settings), "go"))
    spent = [e.cost_usd for e in events if isinstance(e, SubagentProgress)]
    assert spent == [pytest.approx(3.0), pytest.approx(6.0)]


def test_a_model_without_a_price_spends_nothing_known(fake_model: FakeAnthropic, tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    child = delegate(fake_model)
    child.tool_use("read_file", path="a.py").tool_use("submit_note", conclusion="x is 1")
    settings = Settings(max_retries=0, model="some-local-model")
    events = asyncio.run(collect(make_agent(tmp_path, settings), "go"))
    assert [e.cost_usd for e in events if isinstance(e, SubagentProgress)] == [None]
