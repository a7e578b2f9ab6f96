"""The side panel: Todos, Notes, Context, Usage. State folded from events; rendering is pure.

Beside the conversation from 100 columns on; below it (full width, more compact) under that.
Plain text (ASCII marks, no box) when colour is off.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.color import Color, ColorParseError
from rich.console import Group
from rich.panel import Panel
from rich.text import Text

from agent_cli.core.events import CompactionDone, FilesChanged, NoteAdded, TodosUpdated, UsageUpdate
from agent_cli.core.payloads import Note, TodoItem
from agent_cli.core.text.money import cost
from agent_cli.ui.render.render import to_ansi, tokens
from agent_cli.ui.screen.rows import packed
from agent_cli.ui.screen.rows import side_width as side_width

FOLD_BELOW = 100  # columns under which the panel goes below the conversation
MAX_TODOS = 8  # longer lists collapse to their unfinished items
MAX_NOTES = 3
MARKS = {"completed": "✔", "in_progress": "◐", "pending": "○"}
PLAIN_MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}
STYLES = {"completed": "green", "in_progress": "bold yellow", "pending": ""}


@dataclass(frozen=True)
class JobRow:
    """A running background job as the panel shows it."""

    id: str
    command: str
    elapsed_s: int
    last_line: str
    kept: bool = False


@dataclass
class PanelState:
    todos: list[TodoItem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)  # oldest first
    episode: dict[str, str] | None = None  # the newest episode written here: id, title
    context_tokens: int | None = None
    context_window: int = 200_000
    compact_at: int | None = None  # tokens past which compaction starts (context.compact_at)
    compactions: int = 0
    todos_retired: bool = False  # the finished list is out of the panel
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read: int = 0
    cost_usd: float = 0.0  # what the calls whose model has a price cost
    cost_unpriced: bool = False  # some call's model has no price
    calls: int = 0
    files_changed: int | None = None  # files this session's turns changed (None: none ended)
    jobs: list[JobRow] = field(default_factory=list)  # running background jobs (the REPL's)
    extra: list[tuple[str, list[str]]] = field(default_factory=list)
    """The extensions' panel parts as last asked: (heading, lines)."""

    def apply(self, event: Any) -> bool:
        """Fold one event in; True when the panel changed."""
        if isinstance(event, TodosUpdated):
            self.todos, self.todos_retired = list(event.todos), False
        elif isinstance(event, NoteAdded):
            self.notes.append(event.note)
        elif isinstance(event, CompactionDone):
            self.compactions += 1
            self.context_tokens = event.tokens_after
        elif isinstance(event, FilesChanged):
            self.files_changed = event.session_files
        elif isinstance(event, UsageUpdate):
            self.input_tokens += event.input_tokens + event.cache_creation_input_tokens
            self.output_tokens += event.output_tokens
            self.cache_read += event.cache_read_input_tokens
            self.calls += 1
            if event.caller == "main":
                self.context_tokens = event.context_tokens
                self.context_window = event.context_window
                known = event.session_cost_usd
                self.cost_usd = known if known is not None else event.priced_cost_usd or 0.0
                self.cost_unpriced = known is None
        else:
            return False
        return True

    def cost_label(self) -> str:
        """`$0.012`, `$0.012 + n/a` (a model without a price), `n/a`; `-` before any call."""
        return cost(self.cost_usd, self.cost_unpriced) if self.calls else "-"

    def drop_finished_todos(self) -> None:
        """A list whose items are all done leaves the panel at the start of the next turn (it
        stays in /todos)."""
        if self.todos and all(t.status == "completed" for t in self.todos):
            self.todos_retired = True

    @property
    def shown_todos(self) -> list[TodoItem]:
        return [] if self.todos_retired else self.todos

    @property
    def empty(self) -> bool:
        shown = self.shown_todos or self.notes or self.episode or self.jobs or self.extra
        return not (shown or self.calls or self.context_tokens)

    @property
    def context_pct(self) -> int | None:
        if self.context_tokens is None or not self.context_window:
            return None
        return round(100 * self.context_tokens / self.context_window)


def todo_counts(todos: list[TodoItem]) -> tuple[int, int]:
    return sum(1 for t in todos if t.status == "completed"), len(todos)


def todo_lines(todos: list[TodoItem], width: int, color: bool, full: bool = False) -> Text:
    """Marks, the in-progress item by its active_form; long lists show only unfinished items."""
    marks = MARKS if color else PLAIN_MARKS
    shown = todos
    if not full and len(todos) > MAX_TODOS:
        shown = [t for t in todos if t.status != "completed"][:MAX_TODOS]
    out = Text()
    for item in shown:
        label = item.content
        if item.status == "in_progress" and item.active_form:
            label = item.active_form
        line = f"{marks[item.status]} {label}"
        out.append(fit(line, width) + "\n", style=STYLES[item.status] if color else "")
    hidden = len(todos) - len(shown)
    if hidden:
        out.append(f"  … {hidden} more ({todo_counts(todos)[0]} done)\n", style="dim")
    return out


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 1)] + "…"


def heading(title: str, color: bool) -> Text:
    section = Text()
    section.append(title + "\n", style="bold" if color else "")
    return section


def _todos(state: PanelState, width: int, color: bool) -> Text | None:
    if not state.shown_todos:
        return None
    done, total = todo_counts(state.todos)
    section = heading(f"Todos {done}/{total}", color)
    section.append_text(todo_lines(state.todos, width - 1, color))
    return section


def jobs_section(state: PanelState, width: int, color: bool) -> Text | None:
    """Running jobs: command and elapsed time, then the last line each printed."""
    if not state.jobs:
        return None
    section = heading(f"Jobs {len(state.jobs)}", color)
    for row in state.jobs:
        kept = " kept" if row.kept else ""
        section.append(fit(f"{row.id} {row.elapsed_s}s{kept} {row.command}", width) + "\n")
        if row.last_line:
            section.append(fit(f"  {row.last_line}", width) + "\n", style="dim")
    return section


def _notes(state: PanelState, width: int, color: bool) -> Text | None:
    if not (state.notes or state.episode):
        return None
    section = heading("Notes", color)
    if state.episode:
        mark = "◆" if color else "*"
        title = textwrap.wrap(state.episode["title"], width - 2, max_lines=2, placeholder="…")
        for n, line in enumerate(title or ["?"]):
            section.append((f"{mark} " if n == 0 else "  ") + line + "\n")
        section.append(fit(f"  episode · {state.episode['id']}", width) + "\n", style="dim")
    for note in reversed(state.notes[-MAX_NOTES:]):
        conclusion = " ".join(note.conclusion.split())
        lines = textwrap.wrap(conclusion, width - 2, max_lines=3, placeholder="…") or ["?"]
        for n, line in enumerate(lines):
            if n == 0:  # a subagent type's bullet takes its colour
                section.append("● " if note.color else "• ", style=_style(note, color))
            section.append(("" if n == 0 else "  ") + line + "\n")
        checks = note.evidence_checks
        counted = f" {sum(c.verified for c in checks)}/{len(checks)} verified" if checks else ""
        kind = f" · {note.agent_type}" if note.agent_type else ""
        grade = f"  {note.confidence}{counted} · {note.status}{kind}"
        meta = f"{grade} · {note.id}"
        if len(meta) > width:  # the id is what /notes ID needs: never cut it
            meta = f"{grade}\n  {note.id}"
        section.append(meta + "\n", style="dim")
    return section


def _style(note: Note, color: bool) -> str:
    wanted = note.color or ""
    if not (color and wanted):
        return ""
    try:
        Color.parse(wanted.lower())
        return wanted.lower()
    except ColorParseError:
        return ""


def bar(pct: int, cells: int, color: bool) -> str:
    filled = min(cells, round(cells * pct / 100))
    full, empty = ("█", "░") if color else ("#", "-")
    return full * filled + empty * (cells - filled)


def compactions(state: PanelState) -> str:
    """How many so far, and where the next one starts (a share of the window)."""
    done = f"compactions {state.compactions}"
    if state.compact_at is None or not state.context_window:
        return done
    return f"{done} (at {round(100 * state.compact_at / state.context_window)}%)"


def _context(state: PanelState, width: int, color: bool) -> Text:
    pct = state.context_pct
    window = tokens(state.context_window)
    if pct is None:
        line = f"- / {window}"
    else:
        line = f"{bar(pct, 10, color)} {pct}% {tokens(state.context_tokens or 0)}/{window}"
    section = heading("Context", color)
    section.append(fit(line, width) + "\n")
    section.append(fit(compactions(state), width) + "\n", style="dim")
    return section


def _usage(state: PanelState, width: int, color: bool) -> Text:
    section = heading("Usage", color)
    groups = [
        [f"in {tokens(state.input_tokens)}", f"out {tokens(state.output_tokens)}"],
        [f"cache {tokens(state.cache_read)}", f"cost {state.cost_label()}"],
    ]
    if state.files_changed is not None:
        groups.append([f"files changed {state.files_changed}"])
    section.append("\n".join(line for group in groups for line in packed(group, width, "  ")))
    return section


def folded_footer(state: PanelState, width: int, color: bool) -> Text:
    pct = state.context_pct
    ctx = "ctx -" if pct is None else f"ctx {bar(pct, 10, color)} {pct}%"
    context = (
        f"{ctx} {tokens(state.context_tokens or 0)}/{tokens(state.context_window)}"
        f" · {compactions(state)}"
    )
    usage = [
        f"in {tokens(state.input_tokens)} out {tokens(state.output_tokens)}"
        f" cache {tokens(state.cache_read)}",
        state.cost_label(),
    ]
    if state.files_changed is not None:
        usage.append(f"files {state.files_changed}")
    one = " · ".join([context, *usage])
    if len(one) <= width:
        return Text(one)
    return Text("\n".join([*packed([context], width, ""), *packed(usage, width, " · ")]))


def extension_sections(state: PanelState, width: int, color: bool) -> list[Text]:
    """Each extension part under its heading, its lines cut to the panel's width."""
    sections = []
    for name, lines in state.extra:
        section = heading(name, color)
        section.append("\n".join(fit(line, width) for line in lines))
        sections.append(section)
    return sections


def full_sections(state: PanelState, columns: int, inner: int, color: bool) -> list[Text]:
    parts = (
        _todos(state, inner, color),
        jobs_section(state, inner, color),
        *extension_sections(state, inner, color),
    )
    sections = [s for s in (*parts, _notes(state, inner, color)) if s]
    if columns < FOLD_BELOW:
        sections.append(folded_footer(state, inner, color))
    else:
        sections += [_context(state, inner, color), _usage(state, inner, color)]
    return sections


Sections = Callable[[PanelState, int, int, bool], list[Text]]


def render_panel(
    state: PanelState, columns: int, color: bool, sections_of: Sections = full_sections
) -> str:
    """The panel as it is drawn for a terminal `columns` wide (beside, or folded below)."""
    folded = columns < FOLD_BELOW
    outer = columns if folded else side_width(columns)
    inner = outer - (4 if color else 0)
    sections = sections_of(state, columns, inner, color)
    for section in sections:
        section.rstrip()
    body = Text("\n").join(sections)
    if not color:
        rule = "-" * outer + "\n" if folded else ""
        return rule + to_ansi(body, outer, color).rstrip("\n")
    panel = Panel(Group(body), title="agent", width=outer, border_style="blue")
    return to_ansi(panel, outer, color).rstrip("\n")
