"""The agent's own texts in a redraw (issue 56 item 2): a text the transcript marks as a notice
is drawn in its style, never as `you>`; a transcript written before the mark existed still
resumes (its texts drawn as before), and a thought's line comes before its reply's calls."""

from __future__ import annotations

from pathlib import Path

from agent_cli.session.resume import fold
from agent_cli.session.transcript import (
    MessageRecord,
    SessionRecord,
    ShownRecord,
    TranscriptWriter,
)
from agent_cli.ui.render.history import history_lines

JOB = "[background job j2 `make` ended: exit 0 after 3 s]\nWhole output: /tmp/j2.log"


def _write(path: Path, marked: bool) -> None:
    writer = TranscriptWriter(path)
    writer.append(SessionRecord(id="s", workspace=str(path.parent), model="m"))
    if marked:
        writer.append(ShownRecord(kind="notice", id="job", text=JOB))
        writer.append(ShownRecord(kind="thought", text="thought for 4s"))
    content = [{"type": "text", "text": "build it"}, {"type": "text", "text": JOB}]
    writer.append(MessageRecord(message={"role": "user", "content": content}))
    reply = [
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "text", "text": "Built."},
    ]
    writer.append(MessageRecord(message={"role": "assistant", "content": reply}))


def test_a_marked_notice_is_drawn_as_the_agents_and_the_thought_before_the_reply(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    _write(path, marked=True)
    text = "\n".join(history_lines(fold(path), 80, color=False))
    assert "you> build it" in text
    assert "you> [background job" not in text
    assert "⚑ background job j2 `make` ended: exit 0 after 3 s" in text
    assert text.index("✻ thought for 4s") < text.index("Built.")


def test_a_transcript_without_the_marks_still_resumes(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    _write(path, marked=False)
    restored = fold(path)
    assert len(restored.messages) == 2
    text = "\n".join(history_lines(restored, 80, color=False))
    assert "you> build it" in text
    assert "✻ thought" in text  # its thinking block still folds to the line, untimed
    assert "Built." in text
