"""The context pipeline across a killed process: the real CLI, the real SDK, the fake model
server (which checks SPEC §16 on every request). The pipeline's runs that need no process are
tests/unit/context/test_context_runs.py's."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO, run_agent
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until


@pytest.mark.usefixtures("sandbox_off")  # it kills the group `echo $$` names: the host's pid
def test_resume_after_sigkill_during_a_tool_call_sends_a_valid_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text(
        json.dumps({"context": {"snip_trigger": 6, "snip_target": 4, "snip_limit": 7}})
    )
    (tmp_path / "a.txt").write_text("alpha\n")
    for _ in range(4):
        fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.tool_use("bash", command="echo $$ > started.txt; sleep 30")
    env = {**fake_env, "PYTHONPATH": str(REPO)}
    args = ["run", "-p", "start", "--permission-mode", "bypass"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started = tmp_path / "started.txt"
    wait_until(lambda: started.exists() and started.read_text().endswith("\n"), 30, "bash started")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    group = int(started.read_text())
    assert group > 1
    assert group != os.getpgrp()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)  # the orphaned command
    sent_before = len(fake_model.bodies())

    fake_model.script.text("continuing")
    resumed = run_agent(fake_env, tmp_path, "run", "--continue", "-p", "go on")
    assert resumed.returncode == 0, resumed.stderr
    first = fake_model.bodies()[sent_before]
    messages = first["messages"]
    assert messages[0]["content"] == [{"type": "text", "text": "start"}]  # the head as it was
    assert "[Context snipped: " in json.dumps(messages[2])  # rebuilt after the compaction
    bash_call = messages[-2]["content"][-1]
    assert bash_call["name"] == "bash"
    results = messages[-1]["content"]
    assert results[0]["tool_use_id"] == bash_call["id"]
    assert results[0]["is_error"] is True
    assert "interrupted" in results[0]["content"]
    assert results[-1]["text"] == "go on"
