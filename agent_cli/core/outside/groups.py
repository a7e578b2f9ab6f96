"""The process-group helpers every shell of the agent shares."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

from agent_cli.core.outside.spawn import Popen

# a background job's shell is a plain Popen: nothing of asyncio kills it when the run ends (a
# kept job lives on); a foreground command moved to the background stays asyncio's
Shell = Popen[bytes] | asyncio.subprocess.Process


def exit_code(proc: Shell) -> int | None:
    return proc.poll() if isinstance(proc, Popen) else proc.returncode


def kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def exited(proc: asyncio.subprocess.Process, poll_s: float = 0.02) -> None:
    """Until the shell itself exits. `proc.wait()` also waits for the pipe to close, which a
    background child (`server &`) would hold open until the timeout."""
    while proc.returncode is None:
        await asyncio.sleep(poll_s)
