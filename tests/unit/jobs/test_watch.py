"""Hooks and MCP stdio servers start behind the start gate and in the watcher's care
(agent_cli/core/outside/watch.py): an agent killed with SIGKILL just after the start, before it
could say go, leaves a process that never ran its command; killed after, the watcher ends the
group."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.e2e.jobs_support import group_members
from tests.waiting import wait_until

AGENT = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from agent_cli.core.outside.watch import gated, spawn_watched

    command = ["sh", "-c", "echo $$ > started; touch ran; sleep 60"]

    async def die_before_go(argv, fds):
        proc = await asyncio.create_subprocess_exec(*argv, pass_fds=fds, start_new_session=True)
        print(proc.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)  # the moment between the start and the go

    async def main():
        if sys.argv[1] == "before":
            async with gated(command, die_before_go):
                pass
        async with spawn_watched(command) as proc:
            while not os.path.exists("ran"):
                await asyncio.sleep(0.01)
            print(proc.pid, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    asyncio.run(main())
    """
)


def agent(tmp_path: Path, when: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", AGENT, when], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == -9, done.stderr
    return int(done.stdout)


def test_killed_before_the_go_the_command_never_runs(tmp_path: Path):
    pid = agent(tmp_path, "before")
    wait_until(lambda: group_members(pid) == [], 10, "the gate exits")
    assert not (tmp_path / "ran").exists()
    assert not (tmp_path / "started").exists()


def test_killed_after_the_go_the_watcher_ends_the_group(tmp_path: Path):
    pid = agent(tmp_path, "after")
    assert int((tmp_path / "started").read_text()) == pid  # the command is the group's leader
    wait_until(lambda: group_members(pid) == [], 10, f"group {pid} gone")
