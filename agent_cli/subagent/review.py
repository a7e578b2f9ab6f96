"""The runner's review of a note before the parent sees it: every evidence item and file_ref
checked (evidence.py), the marks set and the confidence capped (grounding.py).
"""

from __future__ import annotations

import logging

from agent_cli.core.payloads import EVIDENCE_ITEMS, EvidenceCheck, Note
from agent_cli.core.tool_contract import ToolContext
from agent_cli.subagent.evidence import EvidenceChecker
from agent_cli.subagent.grounding import marks
from agent_cli.subagent.ledger import CallLedger
from agent_cli.subagent.note import NoteBody

log = logging.getLogger(__name__)
UNCHECKED = "evidence could not be checked (see agent.log)"


def checker_for(ledger: CallLedger, ctx: ToolContext) -> EvidenceChecker:
    return EvidenceChecker(ctx.workspace, ledger, ctx.secrets)


def check_evidence(body: NoteBody, checker: EvidenceChecker) -> list[EvidenceCheck]:
    """One check per item the note keeps, made on the item as written (before any trimming cut
    a quote in half)."""
    return [checker.check(item) for item in body.evidence if item.strip()][:EVIDENCE_ITEMS]


def reviewed(note: Note, body: NoteBody, ledger: CallLedger, ctx: ToolContext) -> Note:
    """`note` (built from the trimmed `body`) with its checks, marks and capped confidence; a
    bug in the checks still leaves a note, marked unchecked."""
    try:
        return _reviewed(note, body, ledger, ctx)
    except Exception:
        log.exception("checking note %s failed", note.id)
        update = {"marks": [UNCHECKED], "confidence": "low", "stated_confidence": note.confidence}
        return note.model_copy(update=update)


def _reviewed(note: Note, body: NoteBody, ledger: CallLedger, ctx: ToolContext) -> Note:
    checker = checker_for(ledger, ctx)
    evidence = [
        check.model_copy(update={"item": shown})
        for check, shown in zip(check_evidence(body, checker), note.evidence, strict=False)
    ]
    refs = [checker.check_ref(ref).model_copy(update={"item": ref}) for ref in note.file_refs]
    found = marks(note.figures.tool_calls, evidence)
    # a cut-off, a note without tool calls or with mostly unverified evidence: never confident
    confidence = "low" if found or note.status != "completed" else note.confidence
    return note.model_copy(
        update={
            "evidence_checks": evidence,
            "ref_checks": refs,
            "missing_refs": [c.item for c in refs if c.verdict == "not found"],
            "marks": found,
            "confidence": confidence,
            "stated_confidence": note.confidence if confidence != note.confidence else None,
        }
    )
