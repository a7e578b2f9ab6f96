"""The shell sandbox through `agent run` as a process: real bubblewrap, the fake model. What
the sandbox hides of the agent's own process (its environment) and a background job dying with
the agent need the process; the rest runs in process (tests/unit/tools/test_sandbox_runs.py)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FAKE_API_KEY
from tests.e2e.helpers import REPO, last_user_blocks, run_agent
from tests.fake_model import FakeAnthropic
from tests.sandbox_support import sandbox_workspace

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

DENIED = "[sandbox: a write outside the workspace or to a protected path was denied"


def _results(fake_model: FakeAnthropic) -> list[str]:
    return [str(b["content"]) for b in last_user_blocks(fake_model.bodies()[-1])]


def _holders(folder: Path) -> list[int]:
    """Processes of the host working in `folder` (a sandboxed pid means nothing outside)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cwd").readlink() == folder:
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


def test_a_planted_key_reads_as_nothing_and_the_agents_environment_is_out_of_sight(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = sandbox_workspace(tmp_path)
    ssh = Path(fake_env["HOME"]) / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- PLANTED\n")
    (ws / "key").symlink_to(ssh / "id_rsa")
    commands = [
        "cat ~/.ssh/id_rsa; echo listing:; ls -A ~/.ssh",
        "cat key",
        "cat /proc/*/environ | tr '\\0' '\\n' | grep -c ANTHROPIC_API_KEY",
        "ls /proc | grep -c '^[0-9]'",
    ]
    fake_model.script.tool_uses(*[("bash", {"command": c}) for c in commands]).text("done")
    proc = run_agent(fake_env, ws, "run", "-p", "read the key")
    assert proc.returncode == 0, proc.stderr
    home, link, environ, pids = _results(fake_model)
    assert "PLANTED" not in home + link
    assert "id_rsa" not in home.split("listing:")[1]
    assert environ.startswith("0\n")
    # its own processes only (bwrap's init, the proxy's relay, bash, ls, grep): none of the agent's
    assert int(pids.split("\n")[0]) <= 5
    assert FAKE_API_KEY not in str(fake_model.bodies())


def test_a_background_job_is_confined_and_dies_with_the_agent(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = sandbox_workspace(tmp_path)
    command = "echo x > ../job-outside.txt; echo started > started; sleep 300"
    fake_model.script.tool_use("bash", command=command, run_in_background=True)
    fake_model.script.text("never", delay=120)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", "run", "-p", "go", "--output-format", "json"],
        cwd=ws,
        env={**fake_env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not (ws / "started").exists():
            assert time.monotonic() < deadline, "the job never started"
            time.sleep(0.05)
        assert _holders(ws), "the job's shell should be running in the workspace"
        proc.send_signal(signal.SIGKILL)  # no teardown: the sandbox dies with its parent
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while _holders(ws) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _holders(ws) == []
    assert not (tmp_path / "job-outside.txt").exists()
    (output,) = (ws / ".transcripts").rglob("j1*")
    assert "Read-only file system" in output.read_text()
