"""A goal's check: the user's own command, run in the workspace after a turn (not asked: the
user wrote it), confined by the sandbox when one is on. Its exit code decides the goal."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.outside import spawn
from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.jobs.spawn import exited, kill_group
from agent_cli.sandbox.policy import SandboxPolicy
from agent_cli.sandbox.probe import SandboxProbe, probe
from agent_cli.sandbox.wrap import SandboxUnavailable, wrap

DRAIN_S = 2.0  # after the shell exits, how long a child that left its group may hold the pipe


@dataclass(frozen=True)
class CheckRun:
    command: str
    exit_code: int | None  # None: timed out (killed) or could not start
    output: str  # the tail, capped


@functools.cache
def _probe() -> SandboxProbe:
    return probe()


def argv_for(command: str, workspace: Path, sandbox: SandboxSettings) -> list[str]:
    argv = ["bash", "-c", command]
    if sandbox.mode == "off":
        return argv
    policy = SandboxPolicy(workspace, write_paths=tuple(sandbox.write_paths),
                           deny_read=tuple(sandbox.deny_read))  # fmt: skip
    return wrap(argv, policy, _probe(), sandbox.mode)


async def run_check(
    command: str, workspace: Path, sandbox: SandboxSettings, timeout_s: float, tail: int
) -> CheckRun:
    """Runs `command`; the whole process group dies on timeout or when the turn is stopped."""
    try:
        argv = argv_for(command, workspace, sandbox)
    except SandboxUnavailable as e:
        return CheckRun(command, None, str(e))
    try:  # the gate's environment: the user's, less credentials
        proc = await spawn.start(
            argv, cwd=workspace, stdin=spawn.DEVNULL, stdout=spawn.PIPE, stderr=spawn.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    except OSError as e:
        return CheckRun(command, None, f"could not start: {e}")
    assert proc.stdout is not None
    reading = asyncio.ensure_future(proc.stdout.read())
    try:
        await asyncio.wait_for(exited(proc), timeout_s)
    except TimeoutError:
        kill_group(proc)
        reading.cancel()
        return CheckRun(command, None, f"timed out after {timeout_s:g} s and was killed")
    except asyncio.CancelledError:
        kill_group(proc)
        reading.cancel()
        raise
    finally:
        if proc.returncode is not None:
            kill_group(proc)  # what it left running in its group dies with it
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(reading), DRAIN_S)
    raw = reading.result() if reading.done() else b""
    reading.cancel()
    text = raw.decode("utf-8", errors="replace")
    return CheckRun(command, proc.returncode, text[-tail:])
