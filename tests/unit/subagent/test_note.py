"""The note: tolerant extraction, trimming in code, rendering for the parent."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent_cli.core.payloads import CONCLUSION_CHARS, Note, NoteFigures
from agent_cli.subagent.note import (
    NoteBody,
    extract_body,
    trim,
)
from agent_cli.subagent.note_render import render


def test_json_with_prose_and_fence_around_is_accepted():
    text = (
        "I checked everything. Here is my note:\n```json\n"
        '{"conclusion": "Login crashes on None session", "evidence": ["auth.py:47"], '
        '"confidence": "High", "extra": {"nested": "ignored"}}\n```\nHope that helps {not json}.'
    )
    body = extract_body(text)
    assert body == NoteBody(
        conclusion="Login crashes on None session", evidence=["auth.py:47"], confidence="high"
    )


def test_the_last_valid_note_wins_and_invalid_ones_are_skipped():
    text = (
        'Example: {"conclusion": "EXAMPLE"} then the real one '
        '{"conclusion": "real", "file_refs": "a.py"} and a broken {"conclusion": ""}'
    )
    body = extract_body(text)
    assert body is not None
    assert body.conclusion == "real"
    assert body.file_refs == ["a.py"]


@pytest.mark.parametrize(
    "text",
    ["plain prose, no JSON at all", '{"evidence": ["no conclusion"]}', "{broken json", ""],
)
def test_no_note_in_text(text: str):
    assert extract_body(text) is None


def test_lists_given_as_strings_are_taken_as_lists():
    body = NoteBody.model_validate(
        {"conclusion": "c", "evidence": '["a", "b"]', "open_issues": "one issue", "file_refs": None}
    )
    assert (body.evidence, body.open_issues, body.file_refs) == (["a", "b"], ["one issue"], [])


def test_blank_conclusion_and_unknown_confidence_are_refused():
    with pytest.raises(ValidationError):
        NoteBody(conclusion="   ")
    with pytest.raises(ValidationError):
        NoteBody.model_validate({"conclusion": "c", "confidence": "certain"})


def test_trim_cuts_over_long_fields_and_says_so():
    body = NoteBody(
        conclusion="x" * 500,
        evidence=[f"item {i} " + "y" * 100 for i in range(8)],
        open_issues=["short"],
    )
    trimmed, notes = trim(body)
    assert len(trimmed.conclusion) == CONCLUSION_CHARS
    assert trimmed.conclusion.endswith("…")
    assert len(trimmed.evidence) == 5
    assert all(len(e) <= 80 for e in trimmed.evidence)
    assert trimmed.open_issues == ["short"]
    assert notes == [
        "conclusion: cut from 500 to 200 chars",
        "evidence: kept 5 of 8 items",
        "evidence: items cut to 80 characters",
    ]


def test_trim_leaves_a_note_within_limits_alone():
    body = NoteBody(conclusion="fine", evidence=["a"], file_refs=["b.py"])
    assert trim(body) == (body, [])


def _note(**over: object) -> Note:
    fields: dict[str, object] = {
        "id": "note-1",
        "session_id": "s",
        "description": "find it",
        "task": "find the thing",
        "status": "completed",
        "conclusion": "Found it in a.py",
        "evidence": ["a.py:3 defines it"],
        "file_refs": ["notes/note-1.log", "ghost.py"],
        "missing_refs": ["ghost.py"],
        "open_issues": ["b.py not checked"],
        "confidence": "high",
        "log_path": "notes/note-1.log",
        "figures": NoteFigures(turns=3, tool_calls=2, process_chars=12_345),
    }
    fields.update(over)
    return Note.model_validate(fields)


def test_render_puts_status_and_conclusion_first_and_flags_missing_refs():
    assert render(_note()) == (
        "[subagent note · completed] Found it in a.py\n"
        "Evidence:\n- a.py:3 defines it\n"
        "Pointers:\n- notes/note-1.log\n- ghost.py (MISSING: no such file)\n"
        "Open issues:\n- b.py not checked\n"
        "Confidence: high\n"
        "Note note-1 · 3 turns, 2 tool calls, 0 in / 0 out tokens, 0.0 s, process 12,345 chars"
    )


def test_the_stored_note_refuses_untrimmed_fields():
    with pytest.raises(ValidationError):
        _note(conclusion="x" * 201)
    with pytest.raises(ValidationError):
        _note(evidence=["e"] * 6)


def test_saving_figure():
    assert NoteFigures(note_chars=40, process_chars=1000).saving == pytest.approx(0.96)
    assert NoteFigures().saving is None
