"""Robustness of one turn end to end: failures reported once, Ctrl-C figures, a tool call cut
off by the output limit, files that are not regular, line numbering."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.e2e.helpers import REPO, last_user_blocks, run_agent
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until


def test_a_failed_turn_is_reported_once_on_stderr(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.error(400, message="the request was refused")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("the request was refused") == 1, proc.stderr


def test_num_turns_counts_requests_made_before_ctrl_c(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command="touch started; sleep 30")
    args = ["run", "-p", "go", "--permission-mode", "bypass", "--output-format", "json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", *args],
        cwd=tmp_path,
        env={**fake_env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        started = tmp_path / "started"
        wait_until(lambda: started.exists() or proc.poll() is not None, 30, "bash started")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    result = json.loads(out)
    assert result["num_turns"] == 1
    assert result["error"] == "interrupted by user"


def test_a_tool_call_cut_off_by_max_tokens_is_not_run(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("write_file", path="big.txt", content="only the first half",
                               stop_reason="max_tokens")  # fmt: skip
    fake_model.script.text("I will write it in parts.")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "write", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "big.txt").exists()
    (result,) = last_user_blocks(fake_model.bodies()[1])
    assert result["type"] == "tool_result"
    assert result["is_error"] is True
    assert "output token limit" in result["content"]


def test_read_file_refuses_a_fifo_instead_of_hanging(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    os.mkfifo(tmp_path / "pipe")
    fake_model.script.tool_use("read_file", path="pipe").text("ok")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "read the pipe", timeout=30)
    assert proc.returncode == 0, proc.stderr
    (result,) = last_user_blocks(fake_model.bodies()[1])
    assert result["is_error"] is True
    assert "not a regular file" in result["content"]


def test_read_file_numbers_lines_like_cat_n(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.c").write_text("line1\n\x0c\nline3 has\u2028sep\x85x\nline4\n")
    fake_model.script.tool_use("read_file", path="a.c").text("ok")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "read")
    assert proc.returncode == 0, proc.stderr
    (result,) = last_user_blocks(fake_model.bodies()[1])
    numbered = [line.split("\t")[0].strip() for line in result["content"].split("\n")]
    assert numbered == ["1", "2", "3", "4"]
    assert result["content"].split("\n")[3] == "     4\tline4"
