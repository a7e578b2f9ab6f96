"""The session's records: the transcript writer and reader, one usage account, folding a
transcript back, the latest session of a workspace."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_cli.core.events import UsageUpdate
from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.model.usage import Usage
from agent_cli.session.resume import fold, latest_session
from agent_cli.session.state import Session
from agent_cli.session.transcript import (
    MessageRecord,
    SessionRecord,
    ShownRecord,
    TranscriptWriter,
    UsageRecord,
    read_records,
)
from tests.unit.tool_helpers import make_ctx

KEY = "sk-unit-" + "q" * 24


def _message(role: str, text: str) -> dict:
    return {"role": role, "content": [{"type": "text", "text": text}]}


def test_writer_ends_a_cut_off_line_before_appending(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    TranscriptWriter(path).append(SessionRecord(id="s", workspace="/w", model="m"))
    with path.open("a") as f:
        f.write('{"type": "message", "mess')
    TranscriptWriter(path).append(MessageRecord(message=_message("user", "kept")))
    records = list(read_records(path))
    assert [type(r).__name__ for r in records] == ["SessionRecord", "MessageRecord"]
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    TranscriptWriter(empty)
    assert empty.read_text() == ""


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": 5},
        {"role": "system", "content": "x"},
        {"role": "user", "content": [{"type": "text"}]},
        {"role": "user", "content": ["plain string block"]},
        {"role": "assistant", "content": [{"type": "tool_use", "name": "x", "input": {}}]},
    ],
)
def test_read_records_skips_a_message_of_the_wrong_shape(tmp_path: Path, message: dict):
    path = tmp_path / "s.jsonl"
    good = MessageRecord(message=_message("user", "fine")).model_dump_json()
    path.write_text(good + "\n" + json.dumps({"type": "message", "message": message}) + "\n")
    (record,) = read_records(path)
    assert isinstance(record, MessageRecord)


def test_session_account_totals_records_and_reports(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    writer = TranscriptWriter(tmp_path / "t.jsonl")
    session = Session(
        id="s", model="claude-sonnet-4-6", settings=Settings(), tool_ctx=ctx, transcript=writer
    )
    usage = Usage(input_tokens=1_000_000, output_tokens=0)
    announced: list[UsageUpdate] = []
    session.usage_sink = announced.append
    session.account(usage, "summariser", "claude-sonnet-4-6")
    (event,) = announced
    assert session.usage == usage
    assert session.cost_usd == pytest.approx(3.0)
    assert event.caller == "summariser"
    assert event.session_cost_usd == pytest.approx(3.0)
    (record,) = read_records(writer.path)
    assert isinstance(record, UsageRecord)
    assert (record.caller, record.model, record.usage["input_tokens"]) == (
        "summariser",
        "claude-sonnet-4-6",
        1_000_000,
    )


def test_fold_keeps_usage_per_model_for_pricing_again(tmp_path: Path):
    writer = TranscriptWriter(tmp_path / "s.jsonl")
    for model, tokens in (("a", 1), ("b", 10), ("a", 100)):
        writer.append(UsageRecord(caller="main", model=model, usage={"input_tokens": tokens}))
    state = fold(writer.path)
    assert state.usage.input_tokens == 111
    assert {m: u.input_tokens for m, u in state.usage_by_model.items()} == {"a": 101, "b": 10}


def _record_session(paths: Paths, sid: str, workspace: str, exchange: bool = True) -> None:
    writer = TranscriptWriter(paths.transcript(sid))
    writer.append(SessionRecord(id=sid, workspace=workspace, model="m"))
    if exchange:
        writer.append(MessageRecord(message=_message("user", f"question of {sid}")))
        writer.append(MessageRecord(message=_message("assistant", f"answer of {sid}")))


def test_latest_session_of_a_workspace(tmp_path: Path):
    paths = Paths(tmp_path)
    for sid, workspace in (("1-old", "/a"), ("2-new", "/b")):
        _record_session(paths, sid, workspace)
    assert latest_session(paths, Path("/a")).stem == "1-old"
    assert latest_session(paths).stem in {"1-old", "2-new"}


def test_latest_session_skips_one_opened_and_quit_without_an_exchange(tmp_path: Path):
    paths = Paths(tmp_path)
    _record_session(paths, "1-real", "/a")
    _record_session(paths, "2-empty", "/a", exchange=False)
    os.utime(paths.transcript("1-real"), (1, 1))  # the empty one is clearly the newest
    assert latest_session(paths, Path("/a")).stem == "1-real"
    _record_session(paths, "3-question-only", "/a", exchange=False)
    TranscriptWriter(paths.transcript("3-question-only")).append(
        MessageRecord(message=_message("user", "unanswered"))
    )
    assert latest_session(paths, Path("/a")).stem == "1-real"


def test_fold_keeps_the_whole_history_and_the_newest_context_figure(tmp_path: Path):
    from agent_cli.session.resume import Boundary
    from agent_cli.session.transcript import CompactionRecord

    paths = Paths(tmp_path)
    _record_session(paths, "s", "/a")
    writer = TranscriptWriter(paths.transcript("s"))
    summary = [_message("user", "summary of before")]
    writer.append(CompactionRecord(stage="summary", messages=summary, replaced=2))
    writer.append(MessageRecord(message=_message("user", "later question")))
    writer.append(MessageRecord(message=_message("assistant", "later answer")))
    usage = {
        "input_tokens": 3000,
        "output_tokens": 100,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }
    writer.append(UsageRecord(caller="main", model="m", usage=usage))
    state = fold(paths.transcript("s"))
    conversation = state.conversation()
    shown = [
        m if isinstance(m, Boundary) else m["content"][0]["text"]
        for m in conversation
        if not isinstance(m, ShownRecord)
    ]
    assert shown == [
        "question of s",
        "answer of s",
        Boundary("summary", 2),
        "later question",
        "later answer",
    ]
    assert state.first_prompt == "question of s"
    assert state.exchanges == 2
    assert state.context_tokens == 3100


def test_an_unpriced_model_leaves_the_priced_part_known_until_it_is_priced(tmp_path: Path):
    settings = Settings()
    session = Session(id="s", model="house-model", settings=settings, tool_ctx=make_ctx(tmp_path))
    announced: list[UsageUpdate] = []
    session.usage_sink = announced.append
    million_in = Usage(input_tokens=1_000_000, output_tokens=0)
    session.account(million_in, "subagent:a", "claude-sonnet-4-6")  # priced: $3
    session.account(million_in, "main", "house-model")  # no price
    assert session.cost_usd is None
    assert announced[-1].session_cost_usd is None
    assert announced[-1].priced_cost_usd == pytest.approx(3.0)  # "$3.000 + n/a", not "n/a"
    settings.prices["house-model"] = settings.prices["claude-sonnet-4-6"]
    session.account(million_in, "main", "house-model")  # the next call: the earlier one settles
    assert session.cost_usd == pytest.approx(9.0)
    assert announced[-1].session_cost_usd == pytest.approx(9.0)
