"""What the parent reads of a checked note: verdicts and quotes, marks first, under 3,000 chars."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.payloads import CONCLUSION_CHARS, CommandRun, Note, NoteFigures
from agent_cli.subagent.evidence import EvidenceChecker
from agent_cli.subagent.grounding import marks
from agent_cli.subagent.ledger import CallLedger
from agent_cli.subagent.note import EVIDENCE_CHARS, ISSUE_CHARS, REF_CHARS, REF_ITEMS
from agent_cli.subagent.note_render import PARENT_LIMIT, render, render_markdown


def _worst_note(workspace: Path) -> Note:
    """Every field at its limit, and every evidence item quoting two full-width lines."""
    line = "y" * 300
    (workspace / "w.py").write_text("\n".join([line] * 40) + "\n")
    evidence = [f"w.py:{n}-{n + 5} " + "z" * (EVIDENCE_CHARS - 14) for n in range(1, 6)]
    checker = EvidenceChecker(workspace, CallLedger())
    checks = [checker.check(e) for e in evidence]
    refs = [f"missing/{n}/" + "r" * (REF_CHARS - 12) for n in range(REF_ITEMS)]
    return Note(
        id="note-20261201-000000-abcdef",
        session_id="s",
        description="d",
        task="t",
        status="completed",
        conclusion="c" * CONCLUSION_CHARS,
        evidence=evidence,
        evidence_checks=checks,
        file_refs=refs,
        missing_refs=refs,
        ref_checks=[checker.check_ref(r) for r in refs],
        open_issues=["o" * ISSUE_CHARS] * 5,
        confidence="low",
        stated_confidence="high",
        marks=marks(0, checks),
        trimmed=["conclusion: cut from 900 to 200 chars", "evidence: kept 5 of 9 items"],
        log_path="notes/note-20261201-000000-abcdef.log",
        figures=NoteFigures(
            tool_calls=0,
            files_read=[f"src/file_{n}.py" for n in range(20)],
            commands=[CommandRun(command="c" * 120, outcome="exit 0")] * 20,
        ),
    )


def test_a_note_at_every_limit_stays_under_the_parent_limit(tmp_path: Path):
    note = _worst_note(tmp_path)
    text = render(note)
    assert len(text) <= PARENT_LIMIT < 3000
    assert text.startswith(f"[subagent note · completed · unverified: no tool calls] {'c' * 200}")
    assert "Evidence (5/5 verified):" in text
    assert "    1 | yyy" in text  # shortened, the first quoted line of each item stays
    assert "… 9 more in `agent notes show note-20261201-000000-abcdef`" in text
    full = render_markdown(note)
    assert full.count("| yyy") > text.count("| yyy")  # notes show keeps every quote


def test_grounding_lists_files_and_the_last_commands():
    note = Note(
        id="n",
        session_id="s",
        description="d",
        task="t",
        status="completed",
        conclusion="c",
        confidence="medium",
        log_path="n.log",
        figures=NoteFigures(
            tool_calls=9,
            files_read=[f"f{n}.py" for n in range(7)],
            commands=[CommandRun(command=f"cmd{n}", outcome=f"exit {n}") for n in range(5)],
        ),
    )
    (line,) = [x for x in render(note).splitlines() if x.startswith("Grounding:")]
    assert line == (
        "Grounding: read f0.py, f1.py, f2.py, f3.py, f4.py, +2 more · "
        "ran 2 more, then `cmd2` → exit 2; `cmd3` → exit 3; `cmd4` → exit 4"
    )
