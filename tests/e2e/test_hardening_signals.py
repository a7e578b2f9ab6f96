"""Issue 19 finding 4: SIGTERM or SIGHUP during a tool ends `agent run` as Ctrl-C does: the
tool's process group is killed, the transcript stays consistent, the JSON result says
`is_error`, and the exit status is 143 / 129."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO
from tests.fake_model import FakeAnthropic


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(path: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


@pytest.mark.usefixtures("sandbox_off")  # the pid it prints is the host's (test_sandbox_run)
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_an_ending_signal_during_a_tool_kills_its_group_and_reports(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, signum: int, code: int
):
    command = "sleep 300 & echo $! > child.pid; echo started > started; wait"
    fake_model.script.tool_use("bash", command=command).text("never")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", "run", "-p", "go", "--permission-mode", "bypass",
         "--output-format", "json"],
        cwd=tmp_path,
        env={**fake_env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        _wait_for(tmp_path / "started")
        child = int((tmp_path / "child.pid").read_text())
        assert _alive(child)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    result = json.loads(out)
    assert result["is_error"] is True
    assert signal.Signals(signum).name in result["error"]
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(child), "the tool's child outlived the run"
    (transcript,) = (tmp_path / ".transcripts").glob("*.jsonl")
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    last = next(r for r in reversed(records) if r["type"] == "message")
    (block,) = last["message"]["content"]
    assert block["type"] == "tool_result"
    assert block["is_error"] is True
    assert "interrupted" in block["content"]
