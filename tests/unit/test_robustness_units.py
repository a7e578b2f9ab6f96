"""The pieces behind the robustness fixes: the transcript writer and reader, one usage
account, one redaction, logging that keeps tracebacks off stderr, CRLF edits."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from agent_cli.cli.common import guarded
from agent_cli.context.results import save_result
from agent_cli.events import UsageUpdate
from agent_cli.logs import FILE_ONLY, setup_logging
from agent_cli.model.usage import Usage
from agent_cli.paths import Paths
from agent_cli.redaction import redact_value
from agent_cli.session.resume import fold, latest_session
from agent_cli.session.state import Session
from agent_cli.session.transcript import (
    MessageRecord,
    SessionRecord,
    TranscriptWriter,
    UsageRecord,
    read_records,
)
from agent_cli.settings import Settings
from agent_cli.tool_contract import ToolResult
from agent_cli.tools.edit_file import replace_text
from agent_cli.tools.read_file import split_lines
from agent_cli.tools.registry import finish_result
from tests.unit.tool_helpers import make_ctx

KEY = "sk-unit-" + "q" * 24


@pytest.fixture
def fresh_logging():
    yield
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()


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


def test_latest_session_of_a_workspace(tmp_path: Path):
    paths = Paths(tmp_path)
    for sid, workspace in (("1-old", "/a"), ("2-new", "/b")):
        TranscriptWriter(paths.transcript(sid)).append(
            SessionRecord(id=sid, workspace=workspace, model="m")
        )
    assert latest_session(paths, Path("/a")).stem == "1-old"
    assert latest_session(paths).stem in {"1-old", "2-new"}


def test_display_and_summary_are_redacted(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    ctx.secrets = (KEY,)
    display = {"kind": "diff", "diff": f" KEY={KEY}\n+x", "lines": [KEY, 3]}
    result = ToolResult(f"saw {KEY}", summary=f"bash echo {KEY}", display=display)
    finished = finish_result(result, ctx, "bash", "call_1")
    assert KEY not in json.dumps([finished.content, finished.summary, finished.display])
    assert redact_value(display, (KEY,))["lines"] == ["[redacted]", 3]


def test_saved_results_share_one_file_name(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    ctx.settings = Settings(tool_result_limit_chars=1_000, tool_preview_chars=200)
    finish_result(ToolResult("x" * 5_000), ctx, "bash", "toolu/01!")
    folder = ctx.paths.tool_results(ctx.session_id)
    (saved,) = folder.iterdir()
    assert saved.name == "toolu01.txt"

    class Ref:  # what context/results saves when it clears an old result
        text, tool_use_id = "x" * 5_000, "toolu/01!"

    assert save_result(Ref(), folder) == saved  # type: ignore[arg-type]


@pytest.mark.usefixtures("fresh_logging")
def test_logging_keeps_tracebacks_and_file_only_records_off_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stderr", stderr)
    setup_logging(Paths(tmp_path), (KEY,))
    log = logging.getLogger("agent_cli.test")
    try:
        raise ValueError(f"bad {KEY}")
    except ValueError:
        log.exception("it broke")
    log.warning("for the file", extra=FILE_ONLY)
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert stderr.getvalue() == "agent: ERROR: it broke\n"
    written = (tmp_path / "logs" / "agent.log").read_text()
    assert "Traceback" in written
    assert "for the file" in written
    assert "bad [redacted]" in written
    assert KEY not in written


@pytest.mark.usefixtures("fresh_logging")
def test_guarded_turns_a_bug_into_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import typer

    stderr = io.StringIO()
    monkeypatch.setattr("sys.stderr", stderr)
    setup_logging(Paths(tmp_path), ())

    @guarded
    def command() -> None:
        raise RuntimeError("boom")

    with pytest.raises(typer.Exit) as exit_info:
        command()
    assert exit_info.value.exit_code == 1
    assert stderr.getvalue() == (
        "agent: internal error: RuntimeError: boom (see logs/agent.log)\n"
    )
    assert "Traceback" in (tmp_path / "logs" / "agent.log").read_text()


def test_crlf_replace_and_line_split():
    assert replace_text("a\r\nb\r\nc\r\n", "a\nb", "x\ny") == (1, "x\r\ny\r\nc\r\n")
    mixed = "a\r\nb\nc\n"  # not all CRLF: matched as written
    assert replace_text(mixed, "b\nc", "z") == (1, "a\r\nz\n")
    assert replace_text(mixed, "a\nb", "z") == (0, mixed)
    assert split_lines("one\x0ctwo\u2028\r\nlast") == ["one\x0ctwo\u2028", "last"]
    assert split_lines("") == []
