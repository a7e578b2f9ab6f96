"""The context breakdown counts what the pipeline counts, and `context.compact_at` moves the
summary threshold (the cheaper steps staying below it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_cli.context.breakdown import metered
from agent_cli.context.pipeline import build_pipeline
from agent_cli.context.tokens import compact_tokens, resolve_thresholds, value_tokens
from agent_cli.core.errors import ConfigError
from agent_cli.core.settings.context import compact_value
from agent_cli.core.settings.schema import Settings, parse_settings
from agent_cli.model.usage import Usage
from agent_cli.ui.render.context_view import bar, context_lines
from tests.unit.context.fakes import context_for, make_session, tool_round, user

SYSTEM: list[dict[str, Any]] = [
    {"type": "text", "text": "You are an agent.\n\n" + "Project rule. " * 50}
]
FIXED: list[dict[str, Any]] = [
    {"name": "read_file", "description": "Read a file.", "input_schema": {}}
]
MCP: list[dict[str, Any]] = [
    {"name": "mcp__srv__query", "description": "Ask the server." * 20, "input_schema": {}}
]


def test_categories_add_up_to_the_pipelines_estimate(tmp_path: Path):
    session = make_session(tmp_path, Settings())
    _, compactor = build_pipeline(session)
    offered = [*FIXED]
    meter = metered(compactor.state, SYSTEM, ["Project rule. " * 50], lambda: offered, FIXED)
    messages = [user("read it"), *tool_round("x" * 4_000), user("thanks")]
    before = meter.measure("m", 200_000, messages, context_for(session))
    assert before.categories["mcp_tools"] == 0
    assert not before.calibrated
    assert before.estimate_error == 0.30
    offered.append(MCP[0])  # a server became ready: counted from now on
    usage = Usage(input_tokens=3_000)
    view = meter.measure("m", 200_000, messages, context_for(session, last_usage=usage, sent=3))
    assert view.calibrated
    assert view.estimate_error == 0.05
    assert view.categories["mcp_tools"] > 0
    assert view.categories["tool_results"] > view.categories["messages"] > 0
    assert view.categories["skills_and_instructions"] > view.categories["system_prompt"] > 0
    counter = compactor.state.counter
    assert abs(view.used - counter.estimate(messages)) <= len(view.categories)  # rounding only
    assert view.used + view.free == 200_000
    assert view.compact_at == 160_000


def test_the_view_fits_80_columns_and_marks_the_threshold(tmp_path: Path):
    session = make_session(tmp_path, Settings())
    _, compactor = build_pipeline(session)
    meter = metered(compactor.state, SYSTEM, [], lambda: FIXED, FIXED)
    view = meter.measure("claude-x", 200_000, [user("hi")], context_for(session))
    lines = context_lines(view)
    assert all(len(line) <= 78 for line in lines)
    drawn = bar(view)
    assert drawn.index("|") == 1 + 48  # 80 % of 60 cells, after the bracket
    assert drawn.startswith("[#=o")


@pytest.mark.parametrize(
    ("raw", "value"), [(0.5, 0.5), ("50%", 0.5), (1, 1.0), (400_000, 400_000), ("120,000", 120_000)]
)
def test_compact_at_takes_a_fraction_or_tokens(raw: object, value: object):
    assert compact_value(raw) == value
    assert type(compact_value(raw)) is type(value)


@pytest.mark.parametrize("raw", [0, -0.2, 1.5, 999, 1_000.5, True, "soon", None, [0.5]])
def test_compact_at_refuses_anything_else(raw: object):
    with pytest.raises(ValueError, match=r"fraction|token"):
        compact_value(raw)


def test_compact_at_moves_the_summary_and_the_steps_before_it():
    window = {"context_windows": {"big": 1_000_000, "small": 100_000}}
    half = parse_settings({**window, "model": "big", "context": {"compact_at": 0.5}})
    limits = resolve_thresholds(half)
    assert limits.summary_threshold == 500_000
    assert limits.micro_threshold < limits.summary_threshold  # still first
    assert limits.micro_target < limits.micro_threshold
    per_model = {"big": 0.25, "*": 60_000}
    both = parse_settings({**window, "model": "big", "context": {"compact_at": per_model}})
    assert compact_tokens(both) == 250_000
    assert compact_tokens(both, "small") == 60_000
    assert compact_tokens(parse_settings(window)) is None


def test_compact_at_past_the_window_or_beside_summary_threshold_is_refused():
    with pytest.raises(ConfigError, match=r"context\.compact_at"):
        parse_settings({"context": {"compact_at": 300_000}})
    with pytest.raises(ConfigError, match="compact_at or summary_threshold_tokens"):
        parse_settings({"context": {"compact_at": 0.5, "summary_threshold_tokens": 90_000}})
    per_model = parse_settings(
        {"context_windows": {"small": 50_000}, "context": {"compact_at": {"*": 100_000}}}
    )
    with pytest.raises(ConfigError, match="past the window of small"):
        resolve_thresholds(per_model, "small")


def test_the_overhead_is_counted_again_when_other_tools_are_offered(tmp_path: Path):
    # asked every round, and kept while the same schemas are offered: a tool that comes, goes
    # or is replaced by a new schema of the same name is counted at once
    session = make_session(tmp_path, Settings())
    _, compactor = build_pipeline(session)
    offered = [*FIXED]
    meter = metered(compactor.state, SYSTEM, [], lambda: offered, FIXED)
    fixed_only = value_tokens(SYSTEM) + value_tokens(FIXED)
    assert meter.overhead() == meter.overhead() == fixed_only
    offered.append(MCP[0])
    assert meter.overhead() == value_tokens(SYSTEM) + value_tokens([*FIXED, *MCP]) > fixed_only
    offered[-1] = {**MCP[0], "description": "Shorter."}
    assert meter.overhead() == value_tokens(SYSTEM) + value_tokens(offered)
    offered.pop()
    assert meter.overhead() == fixed_only
