"""What the runner, not the model, says about a note: the run's own figures, the marks a parent
must see first, the confidence a note may claim, and the one fix-up request.

A note whose subagent made no tool calls, or whose evidence is mostly unverified, is marked and
its confidence capped at low, whatever the model said; so is any note of a run that was cut off.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_cli.core.payloads import COMMAND_CHARS, CommandRun, EvidenceCheck
from agent_cli.core.text.redaction import redact
from agent_cli.core.tool_contract import ToolContext
from agent_cli.subagent.ledger import CallLedger

MAX_LISTED = 20
NO_TOOL_CALLS = "no tool calls"


def shown(path: Path, workspace: Path) -> str:
    """Relative to the workspace when inside it (what read_file resolves), else absolute."""
    try:
        return str(path.resolve().relative_to(workspace.resolve()))
    except ValueError:
        return str(path)


def files_read(ledger: CallLedger, ctx: ToolContext) -> list[str]:
    return [shown(p, ctx.workspace) for p in ledger.files_read(ctx)][:MAX_LISTED]


def commands_run(ledger: CallLedger, secrets: tuple[str, ...]) -> list[CommandRun]:
    def cut(text: str) -> str:
        text = " ".join(redact(text, secrets).split())
        return text if len(text) <= COMMAND_CHARS else text[: COMMAND_CHARS - 1] + "…"

    return [CommandRun(command=cut(c.command), outcome=c.outcome) for c in ledger.commands()][
        :MAX_LISTED
    ]


def verified_count(checks: Sequence[EvidenceCheck]) -> tuple[int, int]:
    return sum(c.verified for c in checks), len(checks)


def marks(tool_calls: int, checks: Sequence[EvidenceCheck]) -> list[str]:
    """Why the parent should not take the note at its word; empty when nothing is wrong."""
    found: list[str] = []
    if tool_calls == 0:
        found.append(NO_TOOL_CALLS)
    verified, total = verified_count(checks)
    if total and verified * 2 < total:
        found.append(f"evidence {verified}/{total} verified")
    return found


def needs_fixup(checks: Sequence[EvidenceCheck]) -> bool:
    return any(c.failed for c in checks)


def fixup_prompt(checks: Sequence[EvidenceCheck]) -> str:
    """The verdicts of the items that failed, and how to fix them, for the one fix-up turn."""
    lines = [
        "Your note was checked against the workspace and your own tool calls. These items do "
        "not hold:"
    ]
    for check in checks:
        if check.failed:
            lines.append(f"- [{check.verdict}] {check.item} — {check.detail}")
            lines += [f"    {q}" for q in check.quote]
    lines.append(
        "Fix the note now: call submit_note once more with evidence that holds (path:line with "
        "the exact text of that line in quotes, or a command you ran with its outcome), drop "
        "what you cannot support, and set your confidence to match. This is your only chance: "
        "after it your note is handed in as it stands, with these verdicts."
    )
    return "\n".join(lines)
