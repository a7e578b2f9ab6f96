"""What the parent reads of a note, and notes/<id>.md.

`render(note)` is the parent's tool_result: status, marks and conclusion first, so the decision is
the first thing it sees; then each evidence item with its verdict and the cited lines as they
are, pointers, open issues, confidence, and the run's own figures. It stays under
`PARENT_LIMIT` characters: when a note would exceed it, quotes and pointers are shortened first
(`agent notes show` has them whole). It never holds the subagent's tool output.
"""

from __future__ import annotations

from typing import NamedTuple

from agent_cli.core.payloads import EvidenceCheck, Note
from agent_cli.core.text.counts import counted
from agent_cli.subagent.evidence import LINES_EXIST, MATCHED, QUOTE_CHARS
from agent_cli.subagent.grounding import verified_count

PARENT_LIMIT = 2_900
LISTED_FILES = 5
_PLAIN = (MATCHED, LINES_EXIST)  # verified, and nothing to add


class _Form(NamedTuple):
    quote_lines: int | None  # per evidence item; None: all of them
    pointers: int | None
    commands: int
    quote_chars: int = QUOTE_CHARS


# from the fullest to the shortest: the quotes are what the parent most needs, so they go last
_FORMS = (
    _Form(None, None, 3),
    _Form(None, 3, 1),
    _Form(1, 3, 1),
    _Form(1, 1, 1),
    _Form(1, 1, 0, 72),
    _Form(0, 1, 0),
)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"{title}:", *(f"- {line}" for line in lines)] if lines else []


def _first_line(note: Note) -> str:
    marks = f" · unverified: {'; '.join(note.marks)}" if note.marks else ""
    return f"[subagent note · {note.status}{marks}] {note.conclusion}"


def _check_lines(check: EvidenceCheck, form: _Form) -> list[str]:
    head = f"[{check.verdict}] {check.item}"
    if not check.verified or (check.kind == "location" and check.detail not in _PLAIN):
        head += f" — {check.detail}"
    return [head, *(f"    {_cut(q, form.quote_chars)}" for q in check.quote[: form.quote_lines])]


def _evidence(note: Note, form: _Form) -> list[str]:
    if not note.evidence_checks:
        return _section("Evidence", note.evidence)
    verified, total = verified_count(note.evidence_checks)
    lines = [f"Evidence ({verified}/{total} verified):"]
    for check in note.evidence_checks:
        first, *quote = _check_lines(check, form)
        lines += [f"- {first}", *quote]
    return lines


def _missing(ref: str, note: Note) -> str:
    check = next((c for c in note.ref_checks if c.item == ref), None)
    if check is None or check.detail.startswith("no such file"):
        return "no such file"
    return check.detail


def _pointers(note: Note, listed: int | None) -> list[str]:
    shown = [
        f"{ref} (MISSING: {_missing(ref, note)})" if ref in note.missing_refs else ref
        for ref in note.file_refs[:listed]
    ]
    if listed is not None and len(note.file_refs) > listed:
        shown.append(f"… {len(note.file_refs) - listed} more in `agent notes show {note.id}`")
    return _section("Pointers", shown)


def _confidence(note: Note) -> str:
    line = f"Confidence: {note.confidence}"
    if note.stated_confidence and note.stated_confidence != note.confidence:
        why = "; ".join(note.marks) if note.marks else f"the run ended {note.status}"
        line += f" (the subagent said {note.stated_confidence}; lowered: {why})"
    return line


def _grounding(note: Note, listed_commands: int) -> list[str]:
    """Files read and commands run, from the run's log (the figures line has the counts)."""
    f = note.figures
    parts = []
    if f.files_read:
        more = len(f.files_read) - LISTED_FILES
        listed = ", ".join(f.files_read[:LISTED_FILES])
        parts.append(f"read {listed}" + (f", +{more} more" if more > 0 else ""))
    if f.commands:
        last = f.commands[-listed_commands:] if listed_commands else []
        runs = "; ".join(f"`{c.command}` → {c.outcome}" for c in last)
        more = len(f.commands) - len(last)
        if more <= 0:
            parts.append(f"ran {runs}")
        else:
            parts.append(
                f"ran {more} more, then {runs}" if runs else f"ran {counted(more, 'command')}"
            )
    return [f"Grounding: {' · '.join(parts)}"] if parts else []


def _render(note: Note, form: _Form) -> str:
    f = note.figures
    lines = [_first_line(note)]
    lines += _evidence(note, form)
    lines += _pointers(note, form.pointers)
    lines += _section("Open issues", note.open_issues)
    lines.append(_confidence(note))
    if note.trimmed:
        lines.append(f"Trimmed (full text in {note.log_path}): " + "; ".join(note.trimmed))
    lines += _grounding(note, form.commands)
    lines.append(
        f"Note {note.id} · {_count(f.turns, 'turn')}, {_count(f.tool_calls, 'tool call')}, "
        f"{f.input_tokens:,} in / {f.output_tokens:,} out tokens, {f.seconds:.1f} s, "
        f"process {f.process_chars:,} chars"
    )
    return "\n".join(lines)


def render(note: Note) -> str:
    """The text the parent reads (under PARENT_LIMIT characters whenever the fields allow)."""
    for form in _FORMS:
        text = _render(note, form)
        if len(text) <= PARENT_LIMIT:
            return text
    return text


def _checks_section(title: str, checks: list[EvidenceCheck]) -> str:
    if not checks:
        return ""
    lines = [f"## {title}", ""]
    for check in checks:
        lines.append(f"- **{check.verdict}** ({check.kind}) {check.item} — {check.detail}")
        lines += [f"    {q}" for q in check.quote]
    return "\n".join(lines) + "\n\n"


def _grounding_section(note: Note) -> str:
    f = note.figures
    files = "\n".join(f"- {p}" for p in f.files_read) or "- none"
    commands = "\n".join(f"- `{c.command}` → {c.outcome}" for c in f.commands) or "- none"
    return (
        f"## Grounding (from the run's log)\n\n{_count(f.turns, 'turn')}, "
        f"{_count(f.tool_calls, 'tool call')}, {f.seconds:.1f} s.\n\nFiles read:\n{files}\n\n"
        f"Commands:\n{commands}\n\n"
    )


def render_markdown(note: Note) -> str:
    """notes/<id>.md: the rendered note, every check whole, the task and the size figures."""
    f = note.figures
    saving = "n/a" if f.saving is None else f"{f.saving:.1%}"
    checks = _checks_section("Evidence checks", note.evidence_checks) + _checks_section(
        "Pointer checks", note.ref_checks
    )
    grounding = _grounding_section(note) if note.evidence_checks or note.ref_checks else ""
    return (
        f"# {note.description}\n\n{render(note)}\n\n{checks}{grounding}## Task\n\n{note.task}\n\n"
        f"## Context\n\nThe parent received {f.note_chars:,} characters; the subagent's process "
        f"was {f.process_chars:,} characters ({saving} kept out of the parent's context).\n"
    )
