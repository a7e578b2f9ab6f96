"""The panel in the rows the screen spares: full, compact, one line; the mode caps it; a
finished todo list leaves the panel but stays in the state (for /todos)."""

from __future__ import annotations

import pytest

from agent_cli.core.events import TodosUpdated
from agent_cli.core.payloads import TodoItem
from agent_cli.ui.screen.panel_fit import fit_panel, todo_window
from agent_cli.ui.screen.side_panel import PanelState
from tests.e2e.helpers import make_note


def todos(in_progress: int, total: int = 12) -> list[TodoItem]:
    return [
        TodoItem.model_validate(
            {
                "content": f"Step {n}",
                "status": "completed"
                if n < in_progress
                else "in_progress"
                if n == in_progress
                else "pending",
                "active_form": f"Doing step {n}",
            }
        )
        for n in range(1, total + 1)
    ]


def state() -> PanelState:
    notes = [make_note(id=f"n-{n}", conclusion=f"Conclusion {n}.") for n in range(3)]
    return PanelState(todos=todos(6), notes=notes, context_tokens=42_000, calls=2)


@pytest.mark.parametrize("columns", [60, 80, 100, 140])
@pytest.mark.parametrize("rows", [1, 3, 5, 8, 12, 20, 40])
def test_the_panel_never_takes_more_rows_than_it_is_given(columns: int, rows: int):
    for color in (True, False):
        text = fit_panel(state(), columns, color, rows, "full")
        assert text, "something of the panel always fits in one row"
        assert text.count("\n") + 1 <= rows


def test_it_collapses_in_order_full_compact_summary():
    full = fit_panel(state(), 80, False, 100, "full")
    assert "Doing step 6" in full
    assert "Step 12" in full
    compact = fit_panel(state(), 80, False, full.count("\n"), "full")
    assert "Todos 5/12 (9 hidden)" in compact
    assert [line for line in compact.split("\n") if "step" in line.lower()] == [
        "[x] Step 5",
        "[>] Doing step 6",
        "[ ] Step 7",
    ]
    assert "Notes (+2): Conclusion 2." in compact  # the newest note and a count
    line = fit_panel(state(), 80, False, 1, "full")
    assert line.startswith("todos 5/12 · notes 3 · ctx")


def test_the_mode_caps_what_is_shown():
    assert fit_panel(state(), 140, False, 100, "hidden") == ""
    assert "(9 hidden)" in fit_panel(state(), 140, False, 100, "compact")


def test_the_todo_window_follows_the_item_in_progress():
    assert [t.content for t in todo_window(todos(1))] == ["Step 1", "Step 2", "Step 3"]
    assert [t.content for t in todo_window(todos(12))] == ["Step 10", "Step 11", "Step 12"]


def test_a_finished_list_leaves_the_panel_at_the_next_turn_and_stays_for_todos():
    done = todos(13)  # every item completed
    panel = PanelState()
    panel.apply(TodosUpdated(todos=done))
    assert "Todos 12/12" in fit_panel(panel, 140, False, 40, "full")
    panel.drop_finished_todos()
    assert "Todos" not in fit_panel(panel, 140, False, 40, "full")
    assert panel.todos == done
    panel.apply(TodosUpdated(todos=todos(2)))  # a new plan shows again
    assert "Todos 1/12" in fit_panel(panel, 140, False, 40, "full")


def busy_state() -> PanelState:
    """A long session's figures: six-digit token counts, a two-digit cost, files changed."""
    return PanelState(
        context_tokens=128_200,
        input_tokens=128_200,
        output_tokens=2_345,
        cache_read=1_234_000,
        cost_usd=12.345,
        calls=40,
        files_changed=3,
    )


@pytest.mark.parametrize("columns", [80, 100, 140])
@pytest.mark.parametrize("mode", ["full", "compact"])
@pytest.mark.parametrize("rows", [1, 2, 4, 40])
def test_no_figure_of_the_panel_is_cut(columns: int, mode: str, rows: int):
    """`in 128.2k out 2…` at 140 columns: the usage goes on two lines where one is too short,
    and the one-line summary leaves out what does not fit whole."""
    for color in (True, False):
        text = fit_panel(busy_state(), columns, color, rows, mode)
        assert "…" not in text, text
        assert text.count("\n") + 1 <= rows
    shown = fit_panel(busy_state(), columns, False, rows, mode)
    assert "128.2k" in shown
    if rows > 1:
        assert all(figure in shown for figure in ("in 128.2k", "out 2.3k", "$12.345"))
