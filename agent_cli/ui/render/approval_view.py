"""The approval question as the user reads it: what would happen (the diff, the whole command),
why it is asked, and numbered answers, each on its own line so none is cut at 80 columns."""

from __future__ import annotations

from rich.text import Text

from agent_cli.policy.approval import ApprovalRequest
from agent_cli.ui.render import preview
from agent_cli.ui.render.render import to_ansi

DIFF_LINES = 20
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


def question(request: ApprovalRequest, width: int, color: bool) -> str:
    verb = "Apply" if request.kind == "diff" else "Allow"
    head = Text(f"{verb} {request.summary}?", style="bold")
    head.append(f"  ({request.rule})" if request.rule else "", style="dim")
    parts = [to_ansi(head, width, color)]
    if request.preview and request.tool == "bash":
        parts.append(to_ansi(Text(f"  $ {request.preview}", style="cyan"), width, color))
    elif request.preview:
        parts.append(to_ansi(preview.diff(request.preview, DIFF_LINES), width, color))
    parts.append(to_ansi(_options(request), width, color))
    return "\n".join(p.rstrip("\n") for p in parts)


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
