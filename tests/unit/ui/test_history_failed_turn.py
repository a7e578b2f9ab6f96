"""A failed turn redrawn as it was shown live (issue 37): the error line the turn ended with,
after its prompt, from the transcript's record of it; never a bare prompt."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.events import ErrorEvent
from agent_cli.loop.shown import record_shown
from agent_cli.session.resume import fold
from agent_cli.session.transcript import MessageRecord, SessionRecord, TranscriptWriter
from agent_cli.ui.render import render
from agent_cli.ui.render.history import history_lines


class _Recorder:
    def __init__(self, writer: TranscriptWriter) -> None:
        self.writer = writer

    def record(self, record: object) -> None:
        self.writer.append(record)  # type: ignore[arg-type]


def test_the_error_is_redrawn_where_it_was_shown(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    writer = TranscriptWriter(path)
    writer.append(SessionRecord(id="s", workspace=str(tmp_path), model="m"))
    writer.append(MessageRecord(message={"role": "user", "content": "first try"}))
    error = ErrorEvent(kind="ModelError", message="connection refused: check ANTHROPIC_BASE_URL")
    record_shown(_Recorder(writer), error)  # type: ignore[arg-type]  # what the loop does
    writer.append(MessageRecord(message={"role": "user", "content": "second try"}))
    writer.append(MessageRecord(message={"role": "assistant", "content": "It works now."}))
    lines = history_lines(fold(path), 80, color=False)
    live = render.event_line(error, 80, False)
    assert live is not None
    text = "\n".join(lines)
    order = ["you> first try", live, "you> second try", "It works now."]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    assert text.count("✗ connection refused") == 1
