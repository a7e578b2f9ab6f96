"""The structured note a subagent hands back: the model it writes, tolerant extraction, trimming.

The subagent writes a `NoteBody` (through `submit_note`, or as JSON in its last text). The runner
trims it in code (a prompt asking for brevity is not enough), checks its evidence (review.py), and
adds what only the runner knows (status, figures) to make the stored `Note`. The parent reads only
`note_render.render(note)`.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, field_validator

from agent_cli.core.payloads import (
    CONCLUSION_CHARS,
    EVIDENCE_ITEMS,
    Confidence,
)
from agent_cli.core.text import lenient_json
from agent_cli.core.tool_contract import ToolInput

EVIDENCE_CHARS = 80
ISSUE_ITEMS, ISSUE_CHARS = 5, 160
REF_ITEMS, REF_CHARS = 10, 200
UNPARSED = "note could not be parsed"


def new_note_id() -> str:
    return f"note-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def _as_list(value: Any) -> Any:
    """A single string (or a JSON array inside a string) where a list belongs."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, list):
                return [str(v) for v in parsed]
        return [text] if text else []
    if value is None:
        return []
    if isinstance(value, list):
        return [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value]
    return value


class NoteBody(ToolInput):
    """What the subagent writes: the input of `submit_note`. Lengths are stated here for the
    model and enforced by trimming in code, so an over-long note is shortened, never refused."""

    conclusion: str = Field(
        min_length=1,
        description="One actionable sentence: what you found or did (at most 200 characters).",
    )
    evidence: list[str] = Field(
        default_factory=list,
        description="At most 5 items of at most 80 characters: files, lines, data points the "
        "parent can re-check. Not a restatement of the conclusion.",
    )
    file_refs: list[str] = Field(
        default_factory=list,
        description="Paths (relative to the workspace) where the details are. Name only files "
        "that exist.",
    )
    open_issues: list[str] = Field(
        default_factory=list,
        description="What is unresolved or noticed but outside the task (at most 5).",
    )
    confidence: Confidence = Field(
        default="medium", description="high, medium or low: how sure you are of the conclusion."
    )

    @field_validator("evidence", "file_refs", "open_issues", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return _as_list(value)

    @field_validator("confidence", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("conclusion")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the conclusion is empty")
        return value.strip()


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def trim(body: NoteBody) -> tuple[NoteBody, list[str]]:
    """The body within its limits, and a line per field that had to be shortened."""
    notes: list[str] = []

    def items(name: str, values: list[str], count: int, chars: int) -> list[str]:
        kept = [_cut(v, chars) for v in values if v.strip()][:count]
        if len(values) > count:
            notes.append(f"{name}: kept {count} of {len(values)} items")
        if any(len(" ".join(v.split())) > chars for v in values[:count]):
            notes.append(f"{name}: items cut to {chars} characters")
        return kept

    conclusion = _cut(body.conclusion, CONCLUSION_CHARS)
    if conclusion != " ".join(body.conclusion.split()):
        notes.append(f"conclusion: cut from {len(body.conclusion)} to {CONCLUSION_CHARS} chars")
    trimmed = NoteBody(
        conclusion=conclusion,
        evidence=items("evidence", body.evidence, EVIDENCE_ITEMS, EVIDENCE_CHARS),
        file_refs=items("file_refs", body.file_refs, REF_ITEMS, REF_CHARS),
        open_issues=items("open_issues", body.open_issues, ISSUE_ITEMS, ISSUE_CHARS),
        confidence=body.confidence,
    )
    return trimmed, notes


def extract_body(text: str) -> NoteBody | None:
    """The note in a reply's text: the last JSON object that validates as a note, parsed
    liberally (prose, a code fence, extra keys, a list as one string). None when there is none."""
    try:
        return lenient_json.parse(text, NoteBody, prefer_last=True)
    except lenient_json.LenientError:
        return None
