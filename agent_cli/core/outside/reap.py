"""The agent reaps what it starts, grandchildren included (issue 57 item 2).

bubblewrap with its own pid namespace leaves its namespace's init to be reaped by whoever
adopts it, and the job watcher leaves its parent on purpose; where pid 1 does not reap
(a container without an init) such zombies pile up. The agent makes itself the subreaper of
its own descendants (prctl), and reaps the ones that came to it that way: zombies it did not
start itself whose process group or session is one it started (or that are bubblewrap's).
What it started itself is waited for by whoever started it (subprocess, asyncio), never here."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
SETTLE_POLL_S = 0.01

_started: set[int] = set()
_starting = [0]  # starts in flight: a child forked but not yet known is nobody's to reap
_lock = threading.Lock()


def adopt() -> bool:
    """This process becomes the subreaper of its descendants (Linux); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        return bool(ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
    return False


def started(pid: int) -> None:
    """`pid` was started by this process: its own owner waits for it."""
    _started.add(pid)


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """Around a start and its `started()`: no sweep meanwhile (in any thread or coroutine),
    so a child that ends before it is known is never taken from its owner."""
    with _lock:
        _starting[0] += 1
    try:
        yield
    finally:
        with _lock:
            _starting[0] -= 1


def _children() -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path("/proc/self/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(p) for p in (task / "children").read_text().split()]
    return found


def _stat(pid: int) -> tuple[str, str, int, int] | None:
    """(name, state, process group, session) of `pid`."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name = raw[raw.index("(") + 1 : raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2 :].split()
    return name, fields[0], int(fields[2]), int(fields[3])


def _adopted(pid: int) -> tuple[str, str, int, int] | None:
    if pid in _started:
        return None
    stat = _stat(pid)
    if stat is None:
        return None
    name, _, group, session = stat
    ours = group in _started or session in _started or name == "bwrap"
    return stat if ours else None


def sweep() -> int:
    """Reaps the adopted descendants that have ended; how many (none while a start is in
    flight: the next sweep takes them)."""
    with _lock:
        if _starting[0]:
            return 0
        return _sweep_locked()


def _sweep_locked() -> int:
    reaped = 0
    for pid in _children():
        stat = _adopted(pid)
        if stat is not None and stat[1] == "Z":
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    reaped += 1
    return reaped


def settle(timeout_s: float) -> None:
    """At exit: waits (at most `timeout_s`) for the adopted descendants to end, reaping each."""
    deadline = time.monotonic() + timeout_s
    while True:
        sweep()
        if not any(_adopted(pid) for pid in _children()) or time.monotonic() >= deadline:
            return
        time.sleep(SETTLE_POLL_S)
