"""Issue 19, scale: a compaction record refers to the messages it keeps instead of copying
them, and resume starts from the newest compaction without reading what lies before it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agent_cli.session.resume import fold
from agent_cli.session.transcript import (
    NoteRecord,
    SessionRecord,
    TodosRecord,
    TranscriptWriter,
    UsageRecord,
)

NOTE = {
    "id": "n1", "session_id": "s", "description": "d", "task": "t", "status": "completed",
    "conclusion": "c", "confidence": "high", "log_path": "notes/n1.log",
}  # fmt: skip


def msg(role: str, text: str) -> dict:
    return {"role": role, "content": [{"type": "text", "text": text}]}


def _session(path: Path, rounds: int, keep: int = 6) -> tuple[TranscriptWriter, list[dict]]:
    """`rounds` question/answer pairs of ~2 KB each, with a snip-like compaction every 10
    rounds that keeps the first pair, a new marker pair and the newest `keep` messages."""
    writer = TranscriptWriter(path)
    writer.append(SessionRecord(id=path.stem, workspace="/w", model="m"))
    live: list[dict] = []
    for i in range(rounds):
        pair = (msg("user", f"q{i} " + "x" * 1000), msg("assistant", f"a{i} " + "y" * 1000))
        for message in pair:
            live.append(message)
            writer.message(message)
        writer.append(UsageRecord(caller="main", model="m", usage={"input_tokens": 10}))
        if i % 10 == 9:
            marker = msg("user", f"[{len(live) - keep - 2} messages archived]")
            live = [*live[:2], marker, msg("assistant", "ok"), *live[-keep:]]
            writer.compaction("snip", live, "archive.jsonl", 0)
    return writer, live


def test_compaction_records_refer_to_kept_messages_instead_of_copying_them(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    _session(path, 100)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    compactions = [r for r in records if r["type"] == "compaction"]
    assert len(compactions) == 10
    for record in compactions:
        assert len(record["live"]) == 10
        assert len(record["messages"]) == 2  # only the new marker and its answer are inline
        assert len(json.dumps(record)) < 1_500
    content = sum(len(json.dumps(r["message"])) for r in records if r["type"] == "message")
    assert path.stat().st_size < content * 1.25


def test_resume_reads_only_the_newest_boundary_and_what_follows(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    path = tmp_path / "s.jsonl"
    writer, live = _session(path, 95)
    writer.append(TodosRecord(todos=[{"content": "t", "status": "pending"}]))
    writer.append(NoteRecord(note=NOTE))
    expected = fold(path)
    assert [m["content"][0]["text"][:4] for m in expected.messages] == [
        m["content"][0]["text"][:4] for m in live
    ]
    # break every line the live context does not need: a whole-file read would trip on them
    data = bytearray(path.read_bytes())
    text = data.decode()
    start = text.index('"q20 ')
    end = text.index('"q80 ')
    for i in range(start, end):
        if data[i] not in b"\n":
            data[i] = ord("#")
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        state = fold(path)
    assert "broken" not in caplog.text
    assert state.messages == expected.messages
    assert state.calls == expected.calls == 95
    assert state.usage.input_tokens == 950
    assert [t.content for t in state.todos] == ["t"]
    assert [n.id for n in state.notes] == ["n1"]
    assert state.compactions == 9


def test_a_resumed_writer_goes_on_referring_to_restored_messages(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    _session(path, 15)
    state = fold(path)
    writer = TranscriptWriter(path, state.ledger)
    kept = state.messages[-4:]
    writer.compaction("snip", [*state.messages[:2], *kept], None, 0)
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["messages"] == []  # every kept message is referred to
    again = fold(path)
    assert again.messages == [*state.messages[:2], *kept]
    assert again.calls == 15
    assert again.compactions == 2


def test_an_older_transcript_with_copied_contexts_still_resumes(tmp_path: Path):
    path = tmp_path / "old.jsonl"
    lines = [
        {"type": "session", "ts": "t", "id": "old", "workspace": "/w", "model": "m"},
        {"type": "message", "ts": "t", "message": msg("user", "first")},
        {"type": "compaction", "ts": "t", "stage": "summary", "messages": [msg("user", "sum")]},
        {"type": "message", "ts": "t", "message": msg("assistant", "after")},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert fold(path).messages == [msg("user", "sum"), msg("assistant", "after")]
