"""Issue 57 item 2: an `agent run` leaves no process for someone else to reap. Run in a fresh
network namespace (as in a container or a CI job), three sandboxed `bash` calls left five
(bubblewrap's namespace inits and the job watcher, re-parented as zombies); where pid 1 does
not reap, they piled up. The count is taken by a subreaper of our own around the run: whatever
the run leaves comes to it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO

# the subreaper: runs argv, then lists its own children that are left (alive or zombie)
COUNT = r"""
import ctypes, json, os, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
code = subprocess.run(sys.argv[1:]).returncode
time.sleep(0.5)  # a watcher told to end at exit has had time to be reaped, or to be left
left = []
for task in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{task}/children") as f:
        for pid in f.read().split():
            with open(f"/proc/{pid}/stat") as g:
                stat = g.read()
            left.append(stat[stat.index("(") + 1 : stat.rindex(")")] + ":" + stat.split(") ")[1][0])
print(json.dumps({"code": code, "left": left}))
"""
# inside the namespace: a fake model server of its own, then the run
INSIDE = r"""
import os, subprocess, sys
from tests.fake_model import FakeAnthropic
with FakeAnthropic() as fake:
    for i in range(int(sys.argv[1])):
        fake.script.tool_use("bash", command=f"echo {i} > f{i}.txt")
    fake.script.text("done")
    env = dict(os.environ, ANTHROPIC_BASE_URL=fake.base_url)
    done = subprocess.run([sys.executable, "-m", "agent_cli", "run", "-p", "go"], env=env)
sys.exit(done.returncode)
"""
UNSHARE = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare")
@pytest.mark.parametrize("calls", [1, 3])
def test_a_run_in_a_fresh_namespace_leaves_no_orphan(
    fake_env: dict[str, str], tmp_path: Path, calls: int
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    probe = subprocess.run([*UNSHARE, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no new network namespace here (needs root or user namespaces)")
    argv = [sys.executable, "-c", COUNT, *UNSHARE, sys.executable, "-c", INSIDE, str(calls)]
    env = {**fake_env, "PYTHONPATH": str(REPO), "AGENT_SANDBOX": "required"}
    done = subprocess.run(argv, cwd=ws, env=env, capture_output=True, text=True, timeout=120)
    outcome = json.loads(done.stdout.splitlines()[-1])
    assert outcome["code"] == 0, done.stderr
    assert [ws / f"f{i}.txt" for i in range(calls)] == sorted(ws.glob("f*.txt"))
    assert outcome["left"] == []
