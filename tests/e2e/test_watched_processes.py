"""Hooks and MCP stdio servers are in the watcher's care like the bash tool's commands: `kill -9`
of the agent while one runs (in-process, and through the warm process) leaves nothing of its
process group in the process table."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO
from tests.e2e.jobs_support import group_members
from tests.e2e.mcp_support import SERVER
from tests.e2e.warm import Warm
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

Run = Callable[[FakeAnthropic, dict[str, str], Path], None]
ARGS = ("run", "--permission-mode", "bypass", "-p", "work")

pytestmark = pytest.mark.usefixtures("sandbox_off")  # the tests read pids a command printed


def settings(workspace: Path, data: dict[str, object]) -> None:
    (workspace / ".agent").mkdir(exist_ok=True)
    (workspace / ".agent" / "settings.json").write_text(json.dumps(data))


def killed_while(env: dict[str, str], workspace: Path, pid_files: list[str]) -> list[int]:
    """`agent run` killed with SIGKILL once every file of `pid_files` holds a pid."""
    env = {**env, "PYTHONPATH": str(REPO), "AGENT_TRUST_WORKSPACE": "1"}
    agent = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", *ARGS],
        cwd=workspace,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    files = [workspace / name for name in pid_files]
    try:
        ready = lambda: all(f.exists() and f.read_text().strip() for f in files)  # noqa: E731
        wait_until(ready, 60, f"{pid_files} written")
        pids = [int(f.read_text()) for f in files]
        assert all(group_members(pid) for pid in pids)
        os.kill(agent.pid, signal.SIGKILL)
        agent.wait(timeout=20)
    finally:
        if agent.poll() is None:
            agent.kill()
    return pids


def assert_gone(pids: list[int]) -> None:
    gone = lambda: all(group_members(pid) == [] for pid in pids)  # noqa: E731
    wait_until(gone, 10, f"groups {pids} gone")


def hook_run(fake_model: FakeAnthropic, env: dict[str, str], workspace: Path) -> None:
    hook = {"command": "echo $$ > hook.pid; sleep 60", "matcher": "bash", "timeout_s": 120}
    settings(workspace, {"hooks": {"pre_tool_use": [hook]}})
    fake_model.script.tool_use("bash", command="true").text("never")
    assert_gone(killed_while(env, workspace, ["hook.pid"]))


def mcp_run(fake_model: FakeAnthropic, env: dict[str, str], workspace: Path) -> None:
    # a helper that never reads stdin stays after the server's stdin closes, unless killed
    python = shlex.join([sys.executable, str(SERVER)])
    server = f"echo $$ > mcp.pid; sleep 60 & exec {python}"
    spec = {"command": "sh", "args": ["-c", server], "cwd": str(workspace)}
    settings(workspace, {"mcp_servers": {"testsrv": spec}})
    fake_model.script.tool_use("bash", command="echo $$ > fg.pid; sleep 60").text("never")
    assert_gone(killed_while(env, workspace, ["mcp.pid", "fg.pid"]))


def test_a_hook_dies_with_the_agent(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    hook_run(fake_model, fake_env, tmp_path)


def test_an_mcp_server_dies_with_the_agent(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    mcp_run(fake_model, fake_env, tmp_path)


@pytest.mark.parametrize("what", [hook_run, mcp_run], ids=["hook", "mcp"])
def test_through_the_warm_process_they_die_with_it(
    fake_model: FakeAnthropic, warm: Warm, tmp_path: Path, what: Run
):
    warm.start()
    what(fake_model, warm.env, tmp_path)
    assert warm.served() == 1
