from __future__ import annotations

import io
import logging
import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from agent_cli.core.files.logs import FILE_ONLY, MonthlyFileHandler, setup_logging
from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.model.call_log import CallLog, CallRecord, exit_summary
from agent_cli.model.usage import Usage


def test_rollover_is_the_first_of_next_month(tmp_path: Path):
    handler = MonthlyFileHandler(tmp_path / "a.log", backupCount=12, delay=True)
    assert handler.backupCount == 12
    mid_dec = int(datetime(2026, 12, 15, 13, 0).timestamp())
    assert handler.computeRollover(mid_dec) == int(datetime(2027, 1, 1).timestamp())
    mid_mar = int(datetime(2026, 3, 31, 23, 59).timestamp())
    assert handler.computeRollover(mid_mar) == int(datetime(2026, 4, 1).timestamp())
    handler.close()


def test_exit_summary_figures_and_unknown_price(tmp_path: Path):
    log = CallLog(tmp_path / "calls.jsonl", "abcd")
    for model, ins in (("claude-sonnet-4-6", 100), ("claude-sonnet-4-6", 300)):
        record = CallRecord.begin(model, "host", "main")
        record.end(Usage(input_tokens=ins, output_tokens=10), "end_turn", None)
        log.write(record)
    text = exit_summary(log, Settings())
    assert "calls: 2 (0 failed)" in text
    assert "input tokens: max 300 / min 100 / avg 200" in text
    assert "cost: $0.0015" in text
    unknown = CallLog(None, None)
    record = CallRecord.begin("mystery-model", "host", "main")
    record.end(Usage(input_tokens=1), "end_turn", None)
    unknown.write(record)
    assert "cost: n/a" in exit_summary(unknown, Settings(model="mystery-model"))


def test_the_call_log_makes_its_folder_again_when_it_went_away(tmp_path: Path):
    # the folder is made with the first line, not stat-checked at every call; one removed
    # mid-session (a cleanup) is made again, as when it was checked every time
    path = tmp_path / "logs" / "calls.jsonl"
    log = CallLog(path, None)
    record = CallRecord.begin("claude-sonnet-4-6", "host", "main")
    record.end(Usage(input_tokens=1), "end_turn", None)
    log.write(record)
    log.write(record)
    assert len(path.read_text().splitlines()) == 2
    shutil.rmtree(path.parent)
    log.write(record)
    assert len(path.read_text().splitlines()) == 1
    assert (path.parent / ".gitignore").exists()


KEY = "sk-unit-" + "q" * 24


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


def test_after_setup_a_record_still_knows_its_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """setup_logging spares records the lookups no format here shows, not the process id: the
    warm process's log shows it (a run it rehearses sets logging up in that very process)."""
    monkeypatch.setattr("sys.stderr", io.StringIO())
    setup_logging(Paths(tmp_path), ())
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("server %(process)d: %(message)s"))
    log = logging.getLogger("agent_cli.test.process")
    log.addHandler(handler)
    try:
        log.warning("still here")
    finally:
        log.removeHandler(handler)
    assert stream.getvalue() == f"server {os.getpid()}: still here\n"
