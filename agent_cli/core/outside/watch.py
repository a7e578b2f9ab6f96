"""The process groups of this agent process that are not jobs (hooks, MCP stdio servers), in
the care of a watcher of their own (guard.py): if the agent dies, however it dies, the
watcher kills them.

One watcher per process, started with the first group. A warm child is forked from the warm
server: it forgets whatever the server had (its pipe is the server's), so a child's groups
are watched by a watcher whose pipe only that child holds.

`spawn_watched` is how such a process is started: behind a start gate (gate.py), opened
only once the watcher knows its group, so a `kill -9` at any moment leaves nothing behind.
It runs outside the sandbox, through the gate (core/outside): the gate's shell is started by
its absolute path, and an asyncio start goes through `spawn.start`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
from asyncio.subprocess import Process
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from agent_cli.core import snapshot_hold
from agent_cli.core.outside import reap, spawn
from agent_cli.core.outside.gate import StartGate

log = logging.getLogger(__name__)

# the watcher's program, run by its path: nothing of it is imported here
GUARD = Path(__file__).with_name("guard.py")


class GroupWatch:
    def __init__(self) -> None:
        self._fd: int | None = None  # the write end of the watcher's pipe
        self._lock = threading.Lock()

    def add(self, pgid: int) -> bool:
        """Tells the watcher of `pgid`; False when no watcher could be started (logged)."""
        return self._tell(f"+{pgid}")

    def remove(self, pgid: int) -> None:
        self._tell(f"-{pgid}")

    def close(self) -> None:
        """At exit: the watcher hears the pipe end, kills what it still watches, and exits
        (while this process can still reap it: core/outside/reap.py)."""
        self.forget()

    def forget(self) -> None:
        """In a forked child: the pipe is the parent's, and stays the parent's."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = None
        self._lock = threading.Lock()

    def _tell(self, line: str) -> bool:
        with self._lock:
            try:
                if self._fd is None:
                    self._fd = start_guard()
                os.write(self._fd, f"{line}\n".encode())
            except OSError as e:
                self._fd = None
                log.warning("process watcher unavailable: %s", e)
                return False
        return True


def start_guard() -> int:
    """The watcher, reading the pipe whose write end (returned; not inherited by any other
    child) only the agent holds. It forks away at once; a thread reaps its first process."""
    read_end, write_end = os.pipe()
    try:
        proc = spawn.popen(  # the gate's environment: the watcher needs no credential
            [sys.executable, "-S", "-E", str(GUARD)],
            stdin=read_end,
            stdout=spawn.DEVNULL,
            stderr=spawn.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    threading.Thread(target=proc.wait, daemon=True).start()
    return write_end


WATCH = GroupWatch()
SETTLE_S = 2.0  # at exit, how long the watchers may take to end


async def end_watchers() -> None:
    """At exit: the watchers told to end, and what they and the commands leave reaped here
    rather than orphaned (core/outside/reap.py)."""
    WATCH.close()
    await asyncio.to_thread(reap.settle, SETTLE_S)


os.register_at_fork(after_in_child=WATCH.forget)


class _HasPid(Protocol):
    @property
    def pid(self) -> int: ...


P = TypeVar("P", bound=_HasPid)
Start = Callable[[list[str], tuple[int, ...]], Awaitable[P]]


@contextlib.asynccontextmanager
async def gated(argv: list[str], start: Start[P]) -> AsyncIterator[P]:
    """`argv` started by `start(argv behind the gate, fds to pass)` (in a process group of its
    own), run only once the watcher knows the group; the group is let go (and killed) when
    the context ends."""
    await snapshot_hold.passed()  # a turn's checkpoint first: it must not see what this does
    gate = StartGate()
    try:
        proc = await start(spawn.absolute(gate.wrap(argv)), gate.pass_fds)
    except BaseException:
        gate.close()  # if it was started all the same, its gate exits 125
        raise
    gate.spawned()
    try:
        WATCH.add(proc.pid)
        gate.open()
        yield proc
    finally:
        gate.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # what it left in its group too
        WATCH.remove(proc.pid)


def spawn_watched(argv: list[str], **kwargs: Any) -> AsyncContextManager[Process]:
    """`gated` for an asyncio subprocess, through `spawn.start` (`kwargs` as for it: without
    `env`, the gate's)."""

    def start(wrapped: list[str], fds: tuple[int, ...]) -> Awaitable[Process]:
        return spawn.start(wrapped, pass_fds=fds, start_new_session=True, **kwargs)

    return gated(argv, start)
