"""The approval question as the user reads it: what would happen (the diff, the whole command),
why it is asked, and numbered answers, each on its own line so none is cut at 80 columns."""

from __future__ import annotations

from rich.text import Text

from agent_cli.core.text.counts import counted
from agent_cli.policy.approval import ApprovalRequest
from agent_cli.ui.render import preview
from agent_cli.ui.render.render import to_ansi

DIFF_LINES = 20
HINT = "answer the question above · Esc: no, and stop the turn"  # the status bar's
FEEDBACK_PROMPT = "Tell the agent what to do instead (Enter sends, Esc cancels):"


DIFF_ANSWERS = {
    "1": "allow",
    "y": "allow",
    "2": "deny",
    "k": "deny",
    "3": "discard",
    "d": "discard",
}


def answers(request: ApprovalRequest) -> dict[str, str]:
    if request.kind == "diff":
        return dict(DIFF_ANSWERS)
    keys = {"1": "allow", "y": "allow", "3": "deny", "n": "deny", "4": "feedback"}
    if request.reusable:
        keys["2"] = "project"
    return keys


def question(request: ApprovalRequest, width: int, color: bool, rows: int | None = None) -> str:
    """The question laid out at `width`; within `rows` when given (a screen that many rows
    tall: the status bar, the input and a row of the reply stay), the diff or the command cut
    to the rows left, with how many more lines there are."""
    verb = "Apply" if request.kind == "diff" else "Allow"
    head = Text(f"{verb} {request.summary}?", style="bold")
    head.append(f"  ({request.rule})" if request.rule else "", style="dim")
    top = to_ansi(head, width, color).rstrip("\n")
    options = to_ansi(_options(request), width, color).rstrip("\n")
    room = None if rows is None else max(rows - RESERVED - _rows(top) - _rows(options), 1)
    shown = _preview(request, width, color, room)
    return "\n".join(part for part in (top, shown, options) if part)


RESERVED = 4  # rows the question leaves: status bar, input, a row of the reply, one spare


def _rows(ansi: str) -> int:
    return ansi.count("\n") + 1 if ansi else 0


def _preview(request: ApprovalRequest, width: int, color: bool, room: int | None) -> str:
    if not request.preview:
        return ""
    if request.tool == "bash":
        shown = to_ansi(Text(f"  $ {request.preview}", style="cyan"), width, color).rstrip("\n")
        lines = shown.split("\n")
        if room is None or len(lines) <= room:
            return shown
        more = Text(f"  +{counted(len(lines) - room + 1, 'line')}", style="dim")
        return "\n".join([*lines[: room - 1], to_ansi(more, width, color).rstrip("\n")])
    limit = DIFF_LINES
    while True:  # fewer diff lines until they fit (a long one wraps: rows, not lines)
        shown = to_ansi(preview.diff(request.preview, limit), width, color).rstrip("\n")
        if room is None or _rows(shown) <= room or limit == 0:
            return shown
        limit = max(min(limit - 1, room - 1), 0)


def _options(request: ApprovalRequest) -> Text:
    if request.kind == "diff":
        return _diff_options()
    text = Text()
    text.append("  1 yes\n")
    if request.reusable:
        text.append(f"  2 yes, and don't ask again for {request.pattern} in this project\n")
    text.append("  3 no\n")
    text.append("  4 no, and tell the agent what to do instead\n")
    text.append("  Esc / Ctrl-C: no, and stop the turn", style="dim")
    return text


def _diff_options() -> Text:
    text = Text()
    text.append("  1 apply it to your checkout\n")
    text.append("  2 keep the worktree (later: agent worktrees merge)\n")
    text.append("  3 discard it and remove the worktree\n")
    text.append("  Esc / Ctrl-C: keep it, and stop the turn", style="dim")
    return text
