"""What a finished tool call shows under its line: the first lines of its output (or its diff),
an error's reason, and how many lines were left out. Rich `Text` out; render.py turns it into
ANSI or plain text."""

from __future__ import annotations

import re

from rich.text import Text

from agent_cli.core.events import ToolEnd
from agent_cli.core.payloads import DiffDisplay, NoteDisplay, TodosDisplay
from agent_cli.core.text.counts import counted
from agent_cli.policy.approval import USER_DENIED

OUTPUT_LINES = 4  # a few lines of output: enough to see `2`, not a wall of text
DIFF_LINES = 12
ERROR_LINES = 3
INDENT = "  │ "
_EXIT_LINE = re.compile(r"\n*(exit code: -?\d+|killed by signal \d+)\s*\Z")


def output_lines(event: ToolEnd) -> list[str]:
    """The output as the user reads it (bash's exit line is already in the summary)."""
    text = event.output
    if event.name == "bash":
        text = _EXIT_LINE.sub("", text)
    text = text.strip("\n")
    return text.split("\n") if text.strip() else []


def body(event: ToolEnd, width: int) -> Text | None:
    """The preview under a tool's line; None when there is nothing worth showing."""
    if isinstance(event.display, DiffDisplay) and event.display.diff.strip():
        return diff(event.display.diff, DIFF_LINES)
    if isinstance(event.display, (TodosDisplay, NoteDisplay)):
        return None  # the side panel and the note line show these
    lines = output_lines(event)
    if not lines or event.output.startswith(USER_DENIED):  # the user's own "no": the line says it
        return None
    limit = ERROR_LINES if event.is_error else OUTPUT_LINES
    style = "red" if event.is_error else "dim"
    return _clip(lines, limit, width, style)


def _clip(lines: list[str], limit: int, width: int, style: str) -> Text:
    room = max(width - len(INDENT), 10)
    text = Text()
    for line in lines[:limit]:
        shown = line if len(line) <= room else line[: room - 1] + "…"
        text.append(INDENT + shown + "\n", style=style)
    if len(lines) > limit:
        text.append(f"{INDENT}+{counted(len(lines) - limit, 'line')}\n", style="dim")
    text.rstrip()
    return text


def diff(diff_text: str, limit: int) -> Text:
    lines = diff_text.rstrip("\n").split("\n")
    text = Text()
    for line in lines[:limit]:
        text.append("  " + line + "\n", style=_diff_style(line))
    if len(lines) > limit:
        text.append(f"  +{counted(len(lines) - limit, 'line')}\n", style="dim")
    text.rstrip()
    return text


def _diff_style(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "bold"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    return "cyan" if line.startswith("@@") else ""
