"""What a finished tool call shows under its line: the first lines of its output (or its diff),
an error's reason, and how many lines were left out. Rich `Text` out; render.py turns it into
ANSI or plain text.

A reason comes first and whole (wrapped, never cut): the sandbox's lines (`[sandbox: …]`, what
it refused the command) and a failed call's own message."""

from __future__ import annotations

import re
import textwrap

from rich.text import Text

from agent_cli.core.events import ToolEnd
from agent_cli.core.payloads import DiffDisplay, NoteDisplay, TodosDisplay
from agent_cli.core.text.counts import counted
from agent_cli.policy.approval import USER_DENIED

OUTPUT_LINES = 4  # a few lines of output: enough to see `2`, not a wall of text
DIFF_LINES = 12
ERROR_LINES = 3
REASON_ROWS = 6  # a reason's rows once wrapped: a long one still cannot fill the screen
INDENT = "  │ "
SANDBOX = "[sandbox: "  # how the sandbox's own lines start (ext/sandbox, tools/shell/net_access)
_EXIT_LINE = re.compile(r"\n*(exit code: -?\d+|killed by signal \d+)\s*\Z")


def split_notes(output: str) -> tuple[str, list[str]]:
    """The output without the sandbox's lines, which are appended last; those lines."""
    lines = output.rstrip("\n").split("\n")
    cut = len(lines)
    while cut and lines[cut - 1].startswith(SANDBOX):
        cut -= 1
    return "\n".join(lines[:cut]), lines[cut:]


def refused(event: ToolEnd) -> bool:
    """The sandbox refused the call something (a host, a write) even if the command ended well."""
    return bool(split_notes(event.output)[1])


def output_lines(event: ToolEnd) -> list[str]:
    """The output as the user reads it (bash's exit line is already in the summary, the
    sandbox's lines are shown first)."""
    text = split_notes(event.output)[0]
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
    if event.output.startswith(USER_DENIED):  # the user's own "no": the line says it
        return None
    notes = split_notes(event.output)[1]
    lines = output_lines(event)
    if not lines and not notes:
        return None
    text = _wrapped(notes, REASON_ROWS, width, "yellow") if notes else Text()
    if event.is_error:
        text.append_text(_wrapped(lines[:ERROR_LINES], REASON_ROWS, width, "red"))
        _more(text, len(lines) - ERROR_LINES)
    else:
        text.append_text(_clip(lines, OUTPUT_LINES, width, "dim"))
    text.rstrip()
    return text


def _wrapped(lines: list[str], rows: int, width: int, style: str) -> Text:
    """Lines wrapped to the width under the indent, at most `rows` rows (then `…`)."""
    room = max(width - len(INDENT), 10)
    shown: list[str] = []
    for line in lines:
        shown += textwrap.wrap(line, room, break_on_hyphens=False) or [""]
    if len(shown) > rows:
        shown = [*shown[: rows - 1], shown[rows - 1][: room - 1] + "…"]
    text = Text()
    for row in shown:
        text.append(INDENT + row + "\n", style=style)
    return text


def _clip(lines: list[str], limit: int, width: int, style: str) -> Text:
    room = max(width - len(INDENT), 10)
    text = Text()
    for line in lines[:limit]:
        shown = line if len(line) <= room else line[: room - 1] + "…"
        text.append(INDENT + shown + "\n", style=style)
    _more(text, len(lines) - limit)
    return text


def _more(text: Text, left: int) -> None:
    if left > 0:
        text.append(f"{INDENT}+{counted(left, 'line')}\n", style="dim")


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
