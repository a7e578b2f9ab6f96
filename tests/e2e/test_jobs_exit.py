"""No job outlives `agent run`: after a normal end, SIGTERM, SIGHUP and `kill -9` of the agent,
the process table holds nothing of any job's process group. `kill -9` leaves the agent no
chance to clean up: the watcher (agent_cli/core/outside/guard.py) sees its pipe close and
kills them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO, run_agent
from tests.e2e.jobs_support import group_members, job_pid, results
from tests.e2e.warm import Warm
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until, written_number

JOB = "sleep 1000 & sleep 1000"  # two processes in the job's group
ARGS = ("run", "--permission-mode", "bypass", "-p")


def started_pid(fake_model: FakeAnthropic) -> int:
    return job_pid(results(fake_model.bodies()[-1])[0])


# the tests read pids and process groups a command prints: inside the sandbox those are the
# pid namespace's, and signalling them on the host would hit unrelated processes
pytestmark = pytest.mark.usefixtures("sandbox_off")


def test_a_finished_run_leaves_no_job(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command=JOB, run_in_background=True).text("started")
    done = run_agent(fake_env, tmp_path, *ARGS, "start it")
    assert done.returncode == 0, done.stderr
    pid = started_pid(fake_model)
    assert group_members(pid) == []


def test_wait_jobs_waits_for_them(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    job = "sleep 0.5; echo finished > done.txt"
    fake_model.script.tool_use("bash", command=job, run_in_background=True).text("started")
    done = run_agent(fake_env, tmp_path, *ARGS, "start it", "--wait-jobs")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "done.txt").read_text() == "finished\n"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_a_signalled_agent_leaves_no_job(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, signum: int
):
    signalled_run(fake_model, fake_env, tmp_path, signum)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_through_the_warm_process_a_signalled_run_leaves_no_job(
    fake_model: FakeAnthropic, warm: Warm, tmp_path: Path, signum: int
):
    warm.start()
    signalled_run(fake_model, warm.env, tmp_path, signum)
    assert warm.served() == 1  # it did go through the warm process


def signalled_run(
    fake_model: FakeAnthropic, base_env: dict[str, str], tmp_path: Path, signum: int
) -> None:
    fake_model.script.tool_use("bash", command=JOB, run_in_background=True)
    fake_model.script.tool_use("bash", command="echo $$ > fg.pid; sleep 60").text("never")
    env = {**base_env, "PYTHONPATH": str(REPO)}
    agent = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", *ARGS, "work"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        foreground = written_number(tmp_path / "fg.pid", 30, "the foreground command runs")
        job = started_pid(fake_model)
        assert len(group_members(job)) >= 2  # the shell and its sleeps
        os.kill(agent.pid, signum)
        agent.wait(timeout=20)
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()  # not left to a later test's garbage collection (a ResourceWarning)
    # the watcher may still be at it just after a kill -9
    gone = lambda: group_members(job) == group_members(foreground) == []  # noqa: E731
    wait_until(gone, timeout=10, what=f"groups {job} and {foreground} gone")


def test_a_resumed_run_lists_the_previous_jobs(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command="sleep 1000", run_in_background=True)
    fake_model.script.text("started").text("resumed")
    first = run_agent(fake_env, tmp_path, *ARGS, "start it")
    session = first.stderr.split("session: ", 1)[1].split()[0]
    again = run_agent(fake_env, tmp_path, "run", "--resume", session, "-p", "and now?")
    assert again.returncode == 0, again.stderr
    assert "Background jobs of this session's previous run (all ended now):" in again.stderr
    output = tmp_path / ".transcripts" / "jobs" / session / "j1.log"
    assert f"- j1 `sleep 1000` (stopped at exit); output: {output}" in again.stderr
