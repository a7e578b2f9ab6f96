"""What the cost extension shows (issue 53), as text from summaries made by hand: `/cost`'s
table per agent (calls, tokens, hit ratio, cost) and its misses with their cause, whole at 80
columns; the side panel's part and the status bar's (hit ratio, session cost, the budget's
meter from before the first call); the status line's JSON facts; a running subagent's spend
on its spinner line."""

from __future__ import annotations

from agent_cli.core.events import SubagentProgress, ToolStart
from agent_cli.ext.cost import view
from agent_cli.ext.cost.records import CallEntry, CostSummary, summarize
from agent_cli.ui.turn import TurnView

AGENTS_MD = "instructions file AGENTS.md"
ENTRIES = [
    CallEntry(call=1, agent="main", model="m", input_tokens=3_000, cache_write_tokens=8_200,
              output_tokens=300, cost_usd=0.04, cause="first"),
    CallEntry(call=2, agent="main", model="m", input_tokens=200, cache_read_tokens=11_200,
              output_tokens=120, cost_usd=0.006),
    CallEntry(call=3, agent="sub1", model="m", input_tokens=900, cache_write_tokens=5_000,
              output_tokens=80, cost_usd=0.02, cause="system", detail=AGENTS_MD),
    CallEntry(call=4, agent="summary", model="m", input_tokens=900, cache_read_tokens=5_000,
              output_tokens=80, cost_usd=0.002),
]  # fmt: skip
SUMMARY = summarize(ENTRIES)


def test_cost_is_a_table_per_agent_with_a_total_the_budget_and_the_misses_with_their_cause():
    assert view.cost_lines(SUMMARY, 1.0, 80) == [
        "agent         calls    input     read    write   output    hit       cost",
        "main              2     3.2k    11.2k     8.2k      420    50%    $0.0460",
        "sub1              1      900        0       5k       80     0%    $0.0200",
        "summary           1      900       5k        0       80    85%    $0.0020",
        "total             4       5k    16.2k    13.2k      580    47%    $0.0680",
        "budget █░░░░░░░░░ $0.07/$1.00",
        "Cache misses (2):",
        "  #1    main       first (wrote 8.2k)",
        "  #3    sub1       system: instructions file AGENTS.md (wrote 5k)",
    ]


def test_the_table_fits_80_columns_whatever_the_figures():
    huge = CallEntry(call=999, agent="a-very-long-agent-name", model="m",
                     input_tokens=987_654_321, cache_read_tokens=123_456_789,
                     cache_write_tokens=98_765_432, output_tokens=9_999_999, cost_usd=12345.6789,
                     cause="tools", detail="mcp server github added " * 5)  # fmt: skip
    lines = view.cost_lines(summarize([huge, *ENTRIES]), 2.0, 80)
    assert max(len(line) for line in lines) <= 80
    assert lines[1].split()[-1] == "$12345.68"  # a figure is never cut
    assert lines[-3].endswith("…")  # a long detail is
    assert view.cost_lines(CostSummary(), None) == ["No model calls yet."]


def test_one_agent_has_no_total_row_and_no_misses_says_so():
    only = summarize([ENTRIES[1]])
    assert view.cost_lines(only, None) == [
        "agent         calls    input     read    write   output    hit       cost",
        "main              1      200    11.2k        0      120    98%    $0.0060",
        "No cache misses.",
    ]


def test_the_panel_part_shows_hit_ratio_cost_meter_and_the_causes():
    assert view.panel_lines(SUMMARY, 0.08, 36) == [
        "budget ████████░░ $0.068/$0.080 85%!",  # past 80 %: said on the meter
        "misses 1 (system)",  # a first call's write is not a miss to show
    ]
    assert view.panel_lines(CostSummary(), None, 36) == []  # no section before a call
    # hit ratio and cost are the status bar's: without a budget or a caused miss, no section
    assert (
        view.panel_lines(SUMMARY.model_copy(update={"misses": SUMMARY.misses[:1]}), None, 36) == []
    )
    assert view.panel_lines(CostSummary(), 1.0, 36) == ["budget ░░░░░░░░░░ $0.00/$1.00"]
    assert all(len(line) <= 20 for line in view.panel_lines(SUMMARY, 1.0, 20))


def test_the_status_bar_part_and_the_status_lines_facts():
    assert view.status_text(SUMMARY, None) == "hit 47% $0.068"
    assert view.status_text(SUMMARY, 1.0) == "hit 47% $0.07/$1.00"
    assert view.status_text(CostSummary(), 1.0) == "$0.00/$1.00"
    assert view.status_text(CostSummary(), None) == ""
    assert view.status_facts(SUMMARY, 1.0) == {
        "cache": {"hit_ratio": 0.4709, "read_tokens": 16_200, "write_tokens": 13_200, "misses": 2},
        "cost_usd": 0.068,
        "budget": {"max_cost_usd": 1.0, "used_percentage": 6.8},
    }
    unpriced = summarize([ENTRIES[1].model_copy(update={"cost_usd": None})])
    assert view.status_facts(unpriced, None)["budget"] == {
        "max_cost_usd": None,
        "used_percentage": None,
    }
    assert view.cost_lines(unpriced, None)[1].endswith("n/a")


def test_a_running_subagents_line_shows_its_spend():
    turn = TurnView(width=80, color=False)
    turn.feed(ToolStart(id="t", name="task", input={"description": "find the bug"}))
    turn.feed(SubagentProgress(id="t", tool_calls=3, elapsed_s=4.2, cost_usd=0.0123))
    assert turn.live(80) == "⠋ task find the bug · 3 tool calls · $0.012  0s"
    turn.feed(SubagentProgress(id="t", tool_calls=4, elapsed_s=5.0))  # its model has no price
    assert turn.live(80) == "⠋ task find the bug · 4 tool calls  0s"
