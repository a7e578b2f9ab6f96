"""The side panel rendered to text for fixed states, compared as whole outputs.

Plain text (no TTY / NO_COLOR) is compared inline; the coloured panel against snapshot files
(regenerate with UPDATE_SNAPSHOTS=1 after checking the change by eye)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_cli.core.events import CompactionDone, NoteAdded, TodosUpdated, UsageUpdate
from agent_cli.core.payloads import TodoItem
from agent_cli.ui.screen.side_panel import PanelState, render_panel
from tests.e2e.helpers import make_note

SNAPSHOTS = Path(__file__).parent / "snapshots"

TODOS = [
    TodoItem.model_validate(t)
    for t in [
        {"content": "Split the turn loop", "status": "completed", "active_form": "Splitting"},
        {
            "content": "Write the tool executor",
            "status": "in_progress",
            "active_form": "Writing the tool executor",
        },
        {"content": "Add tests for interrupts", "status": "pending", "active_form": "Adding tests"},
    ]
]
NOTES = [
    make_note(id="n-0001", conclusion="Old note.", confidence="low", status="error"),
    make_note(
        id="n-1a2b3c",
        conclusion="The loop owns only the message list; the UI consumes events through a "
        "callback.",
        confidence="high",
        status="completed",
    ),
]


def full_state() -> PanelState:
    return PanelState(
        todos=TODOS,
        notes=NOTES,
        context_tokens=42_000,
        context_window=200_000,
        compactions=1,
        input_tokens=41_000,
        output_tokens=174,
        cache_read=12_000,
        cost_usd=0.1234,
        calls=3,
    )


def test_plain_panel_beside_the_conversation_at_140_columns():
    assert (
        render_panel(full_state(), 140, color=False)
        == """\
Todos 1/3
[x] Split the turn loop
[>] Writing the tool executor
[ ] Add tests for interrupts
Notes
• The loop owns only the message list;
  the UI consumes events through a
  callback.
  high · completed · n-1a2b3c
• Old note.
  low · error · n-0001
Context
##-------- 21% 42k/200k
compactions 1
Usage
in 41k  out 174
cache 12k  cost $0.123"""
    )


def test_plain_panel_folds_below_at_80_columns():
    assert (
        render_panel(full_state(), 80, color=False)
        == """\
--------------------------------------------------------------------------------
Todos 1/3
[x] Split the turn loop
[>] Writing the tool executor
[ ] Add tests for interrupts
Notes
• The loop owns only the message list; the UI consumes events through a
  callback.
  high · completed · n-1a2b3c
• Old note.
  low · error · n-0001
ctx ##-------- 21% 42k/200k · compactions 1 · in 41k out 174 cache 12k · $0.123"""
    )


def test_long_todo_list_collapses_to_its_unfinished_items():
    todos = [
        {"content": f"step {i}", "status": "completed", "active_form": f"Doing step {i}"}
        for i in range(9)
    ]
    todos += [
        {"content": "step 9", "status": "in_progress", "active_form": "Doing step 9"},
        {"content": "step 10", "status": "pending"},
        {"content": "step 11", "status": "pending"},
    ]
    assert (
        render_panel(PanelState(todos=[TodoItem.model_validate(t) for t in todos]), 140, False)
        == """\
Todos 9/12
[>] Doing step 9
[ ] step 10
[ ] step 11
  … 9 more (9 done)
Context
- / 200k
compactions 0
Usage
in 0  out 0
cache 0  cost -"""
    )


@pytest.mark.parametrize("columns", [80, 140])
def test_coloured_panel_matches_its_snapshot(columns: int):
    rendered = render_panel(full_state(), columns, color=True)
    path = SNAPSHOTS / f"panel_{columns}_color.ansi"
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.write_text(rendered + "\n", encoding="utf-8")
    assert rendered + "\n" == path.read_text(encoding="utf-8")
    assert "\x1b[" in rendered  # styled, unlike the plain one


def test_state_folds_events():
    state = PanelState()
    assert state.empty
    state.apply(TodosUpdated(todos=TODOS))
    state.apply(NoteAdded(note=NOTES[1]))
    state.apply(
        UsageUpdate(
            caller="main",
            input_tokens=100,
            output_tokens=20,
            cache_read_input_tokens=1_000,
            cache_creation_input_tokens=50,
            context_tokens=1_170,
            context_window=200_000,
            session_cost_usd=0.01,
        )
    )
    state.apply(
        CompactionDone(
            stage="summary", messages_before=9, messages_after=1, tokens_before=9, tokens_after=5
        )
    )
    assert (state.todos, state.notes, state.compactions, state.context_tokens) == (
        TODOS,
        [NOTES[1]],
        1,
        5,
    )
    assert (state.input_tokens, state.output_tokens, state.cache_read, state.cost_usd) == (
        150,
        20,
        1_000,
        0.01,
    )


def test_a_long_note_id_gets_its_own_line():
    note = make_note(id="note-20261130-220436-582412", conclusion="Done.")
    assert (
        render_panel(PanelState(notes=[note]), 120, color=False).split("\nContext")[0]
        == """\
Notes
• Done.
  high · completed
  note-20261130-220436-582412"""
    )


def test_notes_section_shows_the_newest_episode_above_the_notes():
    episode = {"id": "ep-20261130-a1b2c3", "title": "Fix the crash on empty input in the parser"}
    state = PanelState(notes=[NOTES[0]], episode=episode)
    assert not state.empty
    assert (
        render_panel(state, 140, color=False).split("\nContext")[0]
        == """\
Notes
* Fix the crash on empty input in the
  parser
  episode · ep-20261130-a1b2c3
• Old note.
  low · error · n-0001"""
    )
    alone = render_panel(PanelState(episode=episode), 80, color=False)
    assert alone.splitlines()[1:4] == [
        "Notes",
        "* Fix the crash on empty input in the parser",
        "  episode · ep-20261130-a1b2c3",
    ]


def test_the_verified_count_sits_beside_the_confidence():
    checks = [
        {"item": "a.py:1", "kind": "location", "verdict": v}
        for v in ("verified", "not found", "verified")
    ]
    note = make_note(
        id="n-7", conclusion="Done.", confidence="low", status="completed", evidence_checks=checks
    )
    assert (
        render_panel(PanelState(notes=[note]), 120, color=False).split("\nContext")[0]
        == """\
Notes
• Done.
  low 2/3 verified · completed
  n-7"""
    )


def _usage(cost: float | None, priced: float | None = None) -> UsageUpdate:
    return UsageUpdate(
        caller="main",
        input_tokens=1,
        output_tokens=1,
        cache_read_input_tokens=0,
        cache_creation_input_tokens=0,
        context_tokens=2,
        context_window=200_000,
        session_cost_usd=cost,
        priced_cost_usd=priced,
    )


def test_cost_shows_n_a_only_for_the_unpriced_part_and_nothing_before_a_call():
    state = PanelState()
    assert state.cost_label() == "-"  # not "$0.000" before the first call
    state.apply(_usage(None, 0.0))
    assert state.cost_label() == "n/a"  # only unpriced calls so far
    state.apply(_usage(None, 0.012))
    assert state.cost_label() == "$0.012 + n/a"
    state.apply(_usage(0.03, 0.03))  # the model got its price: it settles
    assert state.cost_label() == "$0.030"
