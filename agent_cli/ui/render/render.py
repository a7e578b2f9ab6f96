"""Pure rendering: loop events and markdown to text. No terminal, no state beyond arguments.

`color=False` (no TTY, NO_COLOR) gives plain text without escape codes.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from agent_cli.core.events import (
    AutoVerdict,
    CheckpointSaved,
    CompactionDone,
    ErrorEvent,
    FilesChanged,
    NoteAdded,
    SourcesCited,
    ToolEnd,
    WarningEvent,
)
from agent_cli.core.payloads import Note
from agent_cli.core.text.counts import counted
from agent_cli.core.verify_events import ClaimsChecked, GoalChecked
from agent_cli.ui.render import preview
from agent_cli.ui.render.escapes import printable

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_FENCES = ("```", "~~~")


class _Console(Console):
    """Writes only the escapes of its own styles: control characters in the content go."""

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            text, style, control = segment
            yield segment if control else Segment(printable(text), style)


def to_ansi(renderable: RenderableType, width: int, color: bool) -> str:
    """Render to a string: ANSI-styled when `color`, plain text otherwise."""
    console = _Console(
        file=io.StringIO(),
        width=max(width, 10),
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        emoji=False,
        legacy_windows=False,
    )
    console.print(renderable, end="")
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return str(out)


def split_blocks(buffer: str) -> tuple[list[str], str]:
    """Cut finished markdown blocks off the front of streamed text.

    A block is finished at a blank line outside a code fence; the rest (the unfinished block,
    maybe a partial line) is returned as is.
    """
    blocks: list[str] = []
    current: list[str] = []
    in_fence = False
    consumed = start = 0
    lines = buffer.split("\n")
    for line in lines[:-1]:  # the last piece has no newline yet: never a finished line
        consumed += len(line) + 1
        if line.lstrip().startswith(_FENCES):
            in_fence = not in_fence
        if not line.strip() and not in_fence:
            if current:
                blocks.append("\n".join(current))
                current = []
            start = consumed
            continue
        current.append(line)
    if not blocks:
        return [], buffer
    return blocks, buffer[start:]


def markdown(text: str, width: int, color: bool) -> str:
    """A finished block as the user sees it: rendered markdown, in colour or as plain text."""
    from agent_cli.ui.render.markdown_text import ReplMarkdown

    rendered = to_ansi(ReplMarkdown(text, code_theme="monokai"), width, color)
    # rich pads lines to the width and opens lists with a blank line: neither belongs in scrollback
    lines = [line.rstrip(" ") for line in rendered.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def short(text: str, limit: int) -> str:
    """One line of at most `limit` characters (`…` where it was cut)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_label(name: str, args: dict[str, Any]) -> str:
    """What a running call is shown as: `read_file a.py`, `bash pytest -q`."""
    if name == "todo_write" and isinstance(args.get("todos"), list):
        return f"todo_write ({counted(len(args['todos']), 'item')})"
    for key in ("command", "path", "pattern", "description", "focus"):
        if args.get(key):
            return f"{name} {short(args[key], 60)}"
    return name


def spinner_line(label: str, frame: int, color: bool) -> str:
    text = Text(f"{SPINNER[frame % len(SPINNER)]} {label}", style="cyan")
    return to_ansi(text, 200, color).rstrip("\n")


def tool_end(event: ToolEnd, width: int, color: bool) -> str:
    """One line per finished call, then its preview: output lines, an error's reason, a diff."""
    mark, style = mark_of(event)
    line = Text(f"{mark} ", style=style)
    line.append(short(event.summary, max(width - 2, 10)), style="red" if event.is_error else "")
    parts = [to_ansi(line, width, color).rstrip("\n")]
    shown = preview.body(event, width)
    if shown is not None:
        parts.append(to_ansi(shown, width, color).rstrip("\n"))
    return "\n".join(parts)


def mark_of(event: ToolEnd) -> tuple[str, str]:
    """✗ failed; ! ended but the sandbox refused it something (a host, a write); ✔ done."""
    if event.is_error:
        return "✗", "red"
    return ("!", "yellow") if preview.refused(event) else ("✔", "green")


def error_line(message: str, width: int, color: bool) -> str:
    return to_ansi(Text(f"✗ {message}", style="bold red"), width, color).rstrip("\n")


def thinking_line(thinking: str, width: int, color: bool) -> str:
    """Thinking as it streams, folded into one dim line: its newest words."""
    flat = " ".join(thinking.split())
    room = max(width - 14, 10)
    shown = flat if len(flat) <= room else "…" + flat[-(room - 1) :]
    return info_line(f"✻ thinking: {shown}", width, color, "dim italic")


def info_line(message: str, width: int, color: bool, style: str = "dim") -> str:
    return to_ansi(Text(message, style=style), width, color).rstrip("\n")


QUEUED_HINT = "(queued: the model reads it at the next tool boundary; Up edits it)"


def queued_lines(texts: list[str], width: int, color: bool) -> str:
    """What waits for the model, under the live reply: never committed inside it (it is shown
    once, as sent, between the replies)."""
    if not texts:
        return ""
    lines = [f"  ⧗ {short(text, max(width - 5, 10))}" for text in texts]
    return to_ansi(Text("\n".join([QUEUED_HINT, *lines]), style="dim"), width, color).rstrip("\n")


def user_line(prompt: str, width: int, color: bool) -> str:
    text = Text("you> ", style="bold cyan")
    text.append(prompt.rstrip("\n"))
    return to_ansi(text, width, color).rstrip("\n")


def files_changed(n: int) -> str:
    return f"{n} file{'' if n == 1 else 's'} changed"


def note_line(note: Note) -> str:
    return f"note {note.id}: {note.conclusion} ({note.confidence} confidence, {note.status})"


def event_line(event: Any, width: int, color: bool) -> str | None:
    """Scrollback line for the events that are not text or tool calls; None for the rest."""
    if isinstance(event, ErrorEvent):
        return error_line(event.message, width, color)
    if isinstance(event, WarningEvent):
        return info_line(f"! {event.message}", width, color, "yellow")
    if isinstance(event, NoteAdded):
        return info_line("✎ " + note_line(event.note), width, color, "magenta")
    if isinstance(event, SourcesCited):
        lines = [f"[{s.n}] {short(s.title, 60)} — {s.url}" for s in event.sources]
        return info_line("\n".join(["Sources:", *lines]), width, color)
    if isinstance(event, CheckpointSaved) and event.skipped:
        names = ", ".join(event.skipped)
        return info_line(
            f"! not in the checkpoint (too large or a nested repo): {names}", width, color, "yellow"
        )
    if isinstance(event, FilesChanged) and event.files:
        files = ", ".join(event.files[:6]) + (" …" if len(event.files) > 6 else "")
        line = f"◇ {files_changed(len(event.files))}: {files} (/undo takes the turn back)"
        return info_line(line, width, color)
    if isinstance(event, AutoVerdict | GoalChecked | ClaimsChecked):
        return _verdict_line(event, width, color)
    if isinstance(event, CompactionDone):
        return info_line(
            f"⇣ compacted ({event.stage}): {event.messages_before} → {event.messages_after} "
            f"messages, ~{tokens(event.tokens_before)} → ~{tokens(event.tokens_after)} tokens",
            width,
            color,
        )
    return None


def _verdict_line(event: AutoVerdict | GoalChecked | ClaimsChecked, width: int, color: bool) -> str:
    """What judged something: auto mode's verdict on a call (dim), a goal's check, claims."""
    if isinstance(event, AutoVerdict):
        return info_line(event.line(), width, color)
    if isinstance(event, GoalChecked):
        style = "green" if event.goal.met else "yellow"
        return info_line(f"◎ {event.goal.line()}", width, color, style)
    marks = "\n".join(claim.mark() for claim in event.claims)
    style = "yellow" if not all(c.verified for c in event.claims) else "green"
    return info_line(marks, width, color, style)


def tokens(n: int) -> str:
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.1f}".removesuffix(".0") + unit
    return str(n)
