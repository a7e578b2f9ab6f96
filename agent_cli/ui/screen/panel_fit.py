"""The side panel in the rows the screen can spare: full, then compact, then one summary line.

Compact keeps a window of todos around the item in progress plus counts, the newest note plus a
count, and context and usage on one line. The panel mode (F2 cycles it) caps how much is shown.
"""

from __future__ import annotations

from rich.text import Text

from agent_cli.core.payloads import TodoItem
from agent_cli.ui.render.render import tokens
from agent_cli.ui.screen.rows import one_line, packed
from agent_cli.ui.screen.side_panel import (
    FOLD_BELOW,
    MARKS,
    PLAIN_MARKS,
    STYLES,
    PanelState,
    bar,
    extension_sections,
    fit,
    full_sections,
    heading,
    render_panel,
    side_width,
    todo_counts,
)

TODO_WINDOW = 3  # todos shown around the one in progress when compact


def todo_window(todos: list[TodoItem], size: int = TODO_WINDOW) -> list[TodoItem]:
    """`size` consecutive todos around the in-progress one (else the first unfinished)."""
    focus = next((n for n, t in enumerate(todos) if t.status == "in_progress"), None)
    if focus is None:
        focus = next((n for n, t in enumerate(todos) if t.status != "completed"), len(todos) - 1)
    start = max(0, min(focus - size // 2, len(todos) - size))
    return todos[start : start + size]


def _compact_todos(state: PanelState, width: int, color: bool) -> Text | None:
    if not state.shown_todos:
        return None
    done, total = todo_counts(state.todos)
    shown = todo_window(state.todos)
    section = heading(
        f"Todos {done}/{total}" + (f" ({total - len(shown)} hidden)" if total > len(shown) else ""),
        color,
    )
    marks = MARKS if color else PLAIN_MARKS
    for item in shown:
        label = item.active_form if item.status == "in_progress" and item.active_form else None
        line = f"{marks[item.status]} {label or item.content}"
        section.append(fit(line, width - 1) + "\n", style=STYLES[item.status] if color else "")
    return section


def _compact_notes(state: PanelState, width: int) -> Text | None:
    if not state.notes:
        return None
    newest = " ".join(state.notes[-1].conclusion.split())
    more = f" (+{len(state.notes) - 1})" if len(state.notes) > 1 else ""
    return Text(fit(f"Notes{more}: {newest}", width) + "\n")


def usage_parts(state: PanelState, color: bool) -> list[str]:
    """Context, tokens in and out, cost: each a whole, never cut in two."""
    pct = state.context_pct
    ctx = "ctx -" if pct is None else f"ctx {bar(pct, 5, color)} {pct}%"
    return [
        f"{ctx} {tokens(state.context_tokens or 0)}",
        f"in {tokens(state.input_tokens)} out {tokens(state.output_tokens)}",
        state.cost_label(),
    ]


def _compact_jobs(state: PanelState, width: int) -> Text | None:
    if not state.jobs:
        return None
    newest = state.jobs[-1]
    return Text(fit(f"Jobs {len(state.jobs)}: {newest.id} {newest.command}", width) + "\n")


def compact_sections(state: PanelState, columns: int, inner: int, color: bool) -> list[Text]:
    parts = (
        _compact_todos(state, inner, color),
        _compact_jobs(state, inner),
        *extension_sections(state, inner, color),
    )
    sections = [s for s in (*parts, _compact_notes(state, inner)) if s]
    sections.append(Text("\n".join(packed(usage_parts(state, color), inner, " · "))))
    return sections


def summary_line(state: PanelState, columns: int, color: bool) -> str:
    """The whole panel in one line, for when no more rows can be spared."""
    parts = []
    if state.shown_todos:
        done, total = todo_counts(state.todos)
        parts.append(f"todos {done}/{total}")
    if state.jobs:
        parts.append(f"jobs {len(state.jobs)}")
    if state.notes:
        parts.append(f"notes {len(state.notes)}")
    return one_line([*parts, *usage_parts(state, color)], max(columns - 1, 10), " · ")


def fit_panel(state: PanelState, columns: int, color: bool, rows: int, mode: str) -> str:
    """The most of the panel that fits in `rows` (and `mode`); "" when nothing fits."""
    if state.empty or mode == "hidden" or rows < 1:
        return ""
    candidates = []
    if mode == "full":
        candidates.append(render_panel(state, columns, color, full_sections))
    candidates.append(render_panel(state, columns, color, compact_sections))
    for text in candidates:
        if text.count("\n") + 1 <= rows:
            return text
    width = columns if columns < FOLD_BELOW else side_width(columns)
    return summary_line(state, width, color)
