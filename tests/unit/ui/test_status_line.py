"""The status line's runner: the first line, cleaned of escape sequences; a failing or slow run
keeps the last line and is logged once in a row; the bar cuts a long line to its room."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_cli.ext.daily.settings import StatusLineSettings
from agent_cli.ext.daily.status_line import StatusLine, first_line
from agent_cli.ui.status_bar import cut, osc_title


def test_first_line_drops_escapes_and_control_bytes():
    raw = b"\x1b[1;31mred\x1b[0m 42%\x1b]2;a title\x07 ok\x08\x1b[2J\nsecond line\n"
    assert first_line(raw) == "red 42% ok"
    assert first_line(b"") == ""
    assert first_line("caf\u00e9 \u2713".encode()) == "caf\u00e9 \u2713"
    assert first_line(b"\xff\xfe bad bytes") == "\ufffd\ufffd bad bytes"


def test_title_and_cut():
    assert osc_title("a\x07b\x1b]0;x") == "\x1b]2;ab\x1b\\"  # a sequence inside is dropped
    assert cut("a long status line", 8) == "a long …"
    assert cut("short", 8) == "short"


def runner(tmp_path: Path, code: str, **spec: Any) -> tuple[StatusLine, list[str]]:
    script = tmp_path / "s.py"
    script.write_text(code)
    settings = StatusLineSettings(command=f"{sys.executable} {script}", **spec)
    seen: list[str] = []
    line = StatusLine(settings, lambda: {"n": 1}, lambda: None, tmp_path)
    line.changed = lambda: seen.append(line.line)
    return line, seen


def test_the_first_line_of_stdout_is_taken_from_the_json_on_stdin(tmp_path: Path):
    code = "import json, sys; print('n is', json.load(sys.stdin)['n']); print('more')"
    line, seen = runner(tmp_path, code, timeout_ms=5_000)
    asyncio.run(line.refresh())
    assert seen == ["n is 1"]


def test_failure_and_timeout_keep_the_last_line_and_log_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    flag = tmp_path / "mode"
    code = f"""
import pathlib, sys, time
mode = pathlib.Path({str(flag)!r}).read_text()
if mode == "ok": print("good")
elif mode == "fail": sys.exit("broken on purpose")
else: time.sleep(20)
"""
    line, seen = runner(tmp_path, code, timeout_ms=2_000)  # room for a loaded machine

    async def runs(mode: str, times: int) -> None:
        flag.write_text(mode)
        for _ in range(times):
            await line.refresh()

    caplog.set_level(logging.WARNING, logger="agent_cli.ext.daily.status_line")
    asyncio.run(runs("ok", 1))
    asyncio.run(runs("fail", 2))
    assert line.line == "good"
    asyncio.run(runs("slow", 2))
    assert line.line == "good"
    assert seen == ["good"]
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert "exit 1: broken on purpose; the last line stays" in messages[0]
    assert "no answer within 2000 ms" in messages[1]
