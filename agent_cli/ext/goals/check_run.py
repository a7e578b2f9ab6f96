"""A goal's check: the user's own command, run in the workspace after a turn (not asked: the
user wrote it), confined by the sandbox when one is on. Its exit code decides the goal."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.outside import spawn
from agent_cli.core.outside.groups import exited, kill_group
from agent_cli.core.settings.sandbox import SandboxSettings
from agent_cli.ext.sandbox.confine import found
from agent_cli.ext.sandbox.created import Watch
from agent_cli.ext.sandbox.handoff import Handoff
from agent_cli.ext.sandbox.policy import SandboxPolicy
from agent_cli.ext.sandbox.protect import guarded
from agent_cli.ext.sandbox.wrap import SandboxUnavailable, wrap

DRAIN_S = 2.0  # after the shell exits, how long a child that left its group may hold the pipe


@dataclass(frozen=True)
class CheckRun:
    command: str
    exit_code: int | None  # None: timed out (killed) or could not start
    output: str  # the tail, capped


def _policy(workspace: Path, sandbox: SandboxSettings) -> SandboxPolicy:
    return SandboxPolicy(workspace, write_paths=tuple(sandbox.write_paths),
                         deny_read=tuple(sandbox.deny_read))  # fmt: skip


def argv_for(
    command: str, workspace: Path, sandbox: SandboxSettings, handoff: Handoff | None = None
) -> list[str]:
    """`bash -c command`, confined as `sandbox` says (SandboxUnavailable in required mode
    without a mechanism); `handoff` takes the descriptors bwrap binds by (see bash's)."""
    argv = ["bash", "-c", command]
    if sandbox.mode == "off":
        return argv
    return wrap(argv, _policy(workspace, sandbox), found(), sandbox.mode, handoff=handoff)


@dataclass
class _Held:
    """A check's confinement: its argv, the descriptors it inherits, and the protected paths
    as they stood, settled once it has ended (what it planted there is moved aside)."""

    argv: list[str]
    handoff: Handoff
    watch: Watch | None

    @classmethod
    def of(cls, command: str, workspace: Path, sandbox: SandboxSettings) -> _Held:
        plain = ["bash", "-c", command]
        if sandbox.mode == "off":
            return cls(plain, Handoff(), None)
        policy = _policy(workspace, sandbox)
        found = guarded(policy)
        handoff = Handoff(found)
        argv = argv_for(command, workspace, sandbox, handoff)
        return cls(argv, handoff, None if argv == plain else Watch.before(policy, found))

    def settle(self) -> str:
        notes = self.watch.settle() if self.watch is not None else []
        return "".join(f"\n{note}" for note in notes)


async def run_check(
    command: str, workspace: Path, sandbox: SandboxSettings, timeout_s: float, tail: int
) -> CheckRun:
    """Runs `command`; the whole process group dies on timeout or when the turn is stopped."""
    try:
        held = _Held.of(command, workspace, sandbox)
    except SandboxUnavailable as e:
        return CheckRun(command, None, str(e))
    try:  # the gate's environment: the user's, less credentials
        proc = await spawn.start(
            held.argv, cwd=workspace, stdin=spawn.DEVNULL, stdout=spawn.PIPE,
            stderr=spawn.STDOUT, start_new_session=True, pass_fds=held.handoff.fds,
        )  # fmt: skip
    except OSError as e:
        return CheckRun(command, None, f"could not start: {e}")
    finally:
        held.handoff.close()
    try:
        code, text = await _waited(proc, timeout_s)
    finally:
        settled = held.settle()
    return CheckRun(command, code, text[-tail:] + settled if code is not None else text + settled)


async def _waited(proc: asyncio.subprocess.Process, timeout_s: float) -> tuple[int | None, str]:
    """(its exit code, its output); (None, why) when it timed out and was killed."""
    assert proc.stdout is not None
    reading = asyncio.ensure_future(proc.stdout.read())
    try:
        await asyncio.wait_for(exited(proc), timeout_s)
    except TimeoutError:
        kill_group(proc)
        reading.cancel()
        return None, f"timed out after {timeout_s:g} s and was killed"
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
    return proc.returncode, raw.decode("utf-8", errors="replace")
