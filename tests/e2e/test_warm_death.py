"""Issue 40 item 2: a run dies with its client. `kill -9` of `agent run` while its command
runs, then of the command's process group (as a supervisor's clean-up does): no further
request reaches the model and no further command starts, checked for 5 s; the session is
left as an in-process run killed there leaves it, and resumes valid (§16)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.session.resume import session_files
from tests.e2e.warm import Via
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

# the test reads pids and process groups a command prints: inside the sandbox those are the
# pid namespace's, and killing them on the host would hit unrelated processes
pytestmark = pytest.mark.usefixtures("sandbox_off")

# each start of the command leaves a line: its process group
COMMAND = "python3 -c 'import os; print(os.getpgid(0))' >> starts.txt; sleep 30"


@pytest.mark.timeout(180)
def test_a_killed_client_ends_its_run_there(fake_model: FakeAnthropic, via: Via, tmp_path: Path):
    for _ in range(3):  # what a run that went on would ask for: a new try at the command
        fake_model.script.tool_use("bash", command=COMMAND)
    fake_model.script.text("done")
    starts = tmp_path / "starts.txt"
    proc = via.popen(
        tmp_path, "run", "--permission-mode", "bypass", "-p", "run it",
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until(lambda: starts.exists() and starts.read_text().strip() != "", 60, "a start")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        group = int(starts.read_text().split()[0])
        assert group > 1
        assert group != os.getpgrp()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
        requests = len(fake_model.requests)
        time.sleep(5)
        assert len(fake_model.requests) == requests == 1
        assert starts.read_text().split() == [str(group)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (session,) = [p.stem for p in session_files(Paths(tmp_path))]
    again = via.run(tmp_path, "run", "--resume", session, "-p", "and now?")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "done\n"
