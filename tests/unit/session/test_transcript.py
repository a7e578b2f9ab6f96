from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_cli.core.errors import StateWriteError
from agent_cli.core.payloads import TodoItem
from agent_cli.session.resume import fold
from agent_cli.session.transcript import (
    CompactionRecord,
    MessageRecord,
    SessionRecord,
    TitleRecord,
    TodosRecord,
    TranscriptWriter,
    read_records,
)


def msg(role: str, t: str) -> dict:
    return {"role": role, "content": [{"type": "text", "text": t}]}


def test_fold_after_compaction_and_cut_last_line(tmp_path: Path):
    path = tmp_path / "s1.jsonl"
    writer = TranscriptWriter(path)
    writer.append(SessionRecord(id="s1", workspace="/w", model="m"))
    writer.append(MessageRecord(message=msg("user", "old question")))
    writer.append(MessageRecord(message=msg("assistant", "old answer")))
    writer.append(CompactionRecord(stage="summary", messages=[msg("user", "summary")]))
    writer.append(MessageRecord(message=msg("assistant", "new answer")))
    writer.append(TodosRecord(todos=[{"content": "x", "status": "pending"}]))
    with path.open("a") as f:
        f.write('{"type": "message", "message": {"role": "user", "con')  # crash mid-line
    state = fold(path)
    assert state.messages == [msg("user", "summary"), msg("assistant", "new answer")]
    assert state.todos == [TodoItem(content="x", status="pending")]
    assert state.compactions == 1
    assert state.model == "m"


def test_blocks_round_trip_exactly(tmp_path: Path):
    block = {"type": "thinking", "thinking": "ü ✓", "signature": "abc=="}
    message = {"role": "assistant", "content": [block, {"type": "text", "text": "hi"}]}
    writer = TranscriptWriter(tmp_path / "s.jsonl")
    writer.append(MessageRecord(message=msg("user", "q")))
    writer.append(MessageRecord(message=message))
    assert fold(tmp_path / "s.jsonl").messages[1] == message


def test_a_transcript_removed_mid_session_is_made_again_and_a_removed_folder_is_an_error(
    tmp_path: Path,
):
    # the writer keeps its file open between records: a file removed since is made again
    # (as when each record opened it), a folder that went away ends the run in one line
    path = tmp_path / "sessions" / "s1.jsonl"
    writer = TranscriptWriter(path)
    writer.append(TitleRecord(title="one"))
    path.unlink()
    writer.append(TitleRecord(title="two"))
    assert [r.title for r in read_records(path) if isinstance(r, TitleRecord)] == ["two"]
    shutil.rmtree(path.parent)
    with pytest.raises(StateWriteError):
        writer.append(TitleRecord(title="three"))
