"""What the warm process holds and reads about itself: its lock (one server per directory),
its resident memory (for `agent server status`); the end of the client that started it."""

from __future__ import annotations

import fcntl
import os
import select
import time
from pathlib import Path

from agent_cli.cli.warm.place import LOCK


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def take_lock(folder: Path) -> int | None:
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + 5  # a retiring predecessor lets go once its runs end
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(0.05)


def wait_for_exit(pid: int) -> None:
    """Until process `pid` has ended (a zombie has), however it ends: a pidfd where the kernel
    has them, else its state asked every 0.1 s."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except OSError:  # no pidfds (an old kernel, a seccomp filter)
        while _running(pid):
            time.sleep(0.1)
        return
    try:
        select.select([fd], [], [])
    finally:
        os.close(fd)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")
