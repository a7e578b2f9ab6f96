"""The session listing (session/listing.py): newest activity first, one message count (every
message recorded, as the transcript's reader takes them), a fork's own prompt and parent,
read again only where a transcript grew, and the `--continue` one the same as resume picks."""

from __future__ import annotations

import json
import logging
import os
import time
import typing
from pathlib import Path

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.session.fork import fork_transcript
from agent_cli.session.listing import CACHE, describe, latest, summaries, tags
from agent_cli.session.resume import latest_session
from agent_cli.session.shape import RECORD_TYPES
from agent_cli.session.transcript import (
    CompactionRecord,
    MessageRecord,
    Record,
    SessionRecord,
    TranscriptWriter,
    UsageRecord,
    read_records,
)


def _say(writer: TranscriptWriter, role: str, text: str) -> None:
    block = {"type": "text", "text": text}
    writer.append(MessageRecord(message={"role": role, "content": [block]}))


def _session(paths: Paths, sid: str, *prompts: str, workspace: str = "/w") -> TranscriptWriter:
    writer = TranscriptWriter(paths.transcript(sid))
    writer.append(SessionRecord(id=sid, workspace=workspace, model="m"))
    for prompt in prompts:
        _say(writer, "user", prompt)
        _say(writer, "assistant", f"answer to {prompt}")
        writer.append(UsageRecord(caller="main", model="m", usage={"input_tokens": 5}))
    return writer


def test_record_types_are_the_transcripts_own():
    union = typing.get_args(typing.get_args(Record)[0])
    assert {m.model_fields["type"].default for m in union} == RECORD_TYPES


def test_newest_activity_first_whatever_the_files_times(tmp_path: Path):
    paths = Paths(tmp_path)
    _session(paths, "a-old", "first")
    time.sleep(0.002)
    _session(paths, "b-new", "second")
    os.utime(paths.transcript("b-new"), (1, 1))  # an mtime that says otherwise
    assert [s.id for s in summaries(paths)] == ["b-new", "a-old"]


def test_one_message_count_across_a_compaction(tmp_path: Path):
    paths = Paths(tmp_path)
    writer = _session(paths, "s", "one", "two")
    writer.compaction("summary", [{"role": "user", "content": "the summary"}], None, 4)
    _say(writer, "user", "three")
    (summary,) = summaries(paths)
    recorded = [r for r in read_records(paths.transcript("s")) if isinstance(r, MessageRecord)]
    assert summary.messages == len(recorded) == 5  # the summary is no message of the user's
    assert summary.replies == 2
    assert summary.calls == 2
    assert any(isinstance(r, CompactionRecord) for r in read_records(paths.transcript("s")))
    assert "   5 msgs  one" in describe(summary)


def test_a_fork_shows_its_own_prompt_and_its_parent(tmp_path: Path):
    paths = Paths(tmp_path)
    _session(paths, "parent", "the shared start")
    time.sleep(0.002)
    header = SessionRecord(id="child", workspace="/w", model="m", forked_from="parent")
    fork_transcript(paths.transcript("parent"), paths.transcript("child"), header)
    time.sleep(0.002)
    rewind = SessionRecord(id="rewound", workspace="/w", model="m", forked_from="parent@cp1")
    fork_transcript(paths.transcript("parent"), paths.transcript("rewound"), rewind)
    child = {s.id: s for s in summaries(paths)}["child"]
    assert child.prompt == "the shared start"  # nothing of its own yet
    time.sleep(0.002)
    _say(TranscriptWriter(paths.transcript("child")), "user", "a different way")
    found = {s.id: s for s in summaries(paths)}
    assert found["child"].prompt == "a different way"
    assert found["child"].first_prompt == "the shared start"
    assert describe(found["child"]).endswith("3 msgs  a different way")
    assert tags(found["child"]) == ["fork of parent"]
    assert tags(found["rewound"]) == ["rewind of parent"]
    assert found["parent"].forked_from is None
    assert next(s.id for s in summaries(paths)) == "child"  # its own prompt is the newest


def test_internal_texts_are_not_the_prompt(tmp_path: Path):
    paths = Paths(tmp_path)
    writer = TranscriptWriter(paths.transcript("s"))
    writer.append(SessionRecord(id="s", workspace="/w", model="m"))
    _say(writer, "user", "I ran `ls -la` in the shell:\nfile.txt")
    (summary,) = summaries(paths)
    assert summary.prompt == "!ls -la"


def test_only_what_was_appended_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    paths = Paths(tmp_path)
    writer = _session(paths, "s", "one")
    assert summaries(paths)[0].messages == 2
    kept = json.loads((paths.transcripts / CACHE).read_text())["sessions"]["s"]
    assert kept["read"] == paths.transcript("s").stat().st_size
    with paths.transcript("s").open("a") as f:
        f.write('{"type": "message", "message": {"role": "user", "con')  # being written
    assert summaries(paths)[0].messages == 2
    with paths.transcript("s").open("a") as f:
        f.write('tent": "two"}, "ts": "2099-01-01T00:00:00.000+00:00"}\n')
    _say(writer, "assistant", "answer two")
    again = summaries(paths)[0]
    assert again.messages == 4
    assert again.last_activity.startswith("2099")
    reads: list[int] = []
    real_open = Path.open

    def counting(self: Path, *args: object, **kwargs: object) -> object:
        if self.suffix == ".jsonl":
            reads.append(1)
        return real_open(self, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(Path, "open", counting)
    assert summaries(paths)[0].messages == 4
    assert reads == []  # unchanged: not opened at all


def test_a_replaced_transcript_is_read_again_whole(tmp_path: Path):
    paths = Paths(tmp_path)
    _session(paths, "s", "one", "two")
    assert summaries(paths)[0].messages == 4
    path = paths.transcript("s")
    path.unlink()
    _session(paths, "s", "only")
    assert summaries(paths)[0].messages == 2


def test_a_broken_line_is_skipped_and_said_each_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    paths = Paths(tmp_path)
    _session(paths, "s", "one")
    with paths.transcript("s").open("a") as f:
        f.write(json.dumps({"type": "message", "message": {"role": "user", "content": 5}}) + "\n")
        f.write("not json\n")
    for _ in range(2):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            assert summaries(paths)[0].messages == 2
        assert caplog.text.count("skipped a broken transcript line") == 2


def test_continue_takes_the_listings_newest_with_a_reply(tmp_path: Path):
    paths = Paths(tmp_path)
    _session(paths, "1-here", "question", workspace="/a")
    time.sleep(0.002)
    _session(paths, "2-elsewhere", "question", workspace="/b")
    time.sleep(0.002)
    TranscriptWriter(paths.transcript("3-empty")).append(
        SessionRecord(id="3-empty", workspace="/a", model="m")
    )
    found = summaries(paths)
    assert [s.id for s in found] == ["3-empty", "2-elsewhere", "1-here"]
    here = latest(found, Path("/a"))
    assert here is not None
    assert here.id == "1-here"
    assert latest_session(paths, Path("/a")).stem == "1-here"


def test_no_transcripts_folder_lists_nothing(tmp_path: Path):
    assert summaries(Paths(tmp_path / "absent")) == []
