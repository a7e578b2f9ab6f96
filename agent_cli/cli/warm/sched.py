"""How the kernel schedules a client, taken by the child that serves it: CPU affinity (taskset),
I/O priority (ionice), scheduling policy (chrt), niceness (nice) and OOM score adjustment
(choom). Each is read from the kernel for the client's pid, never taken from what it says, and
set by the child on itself right after the fork. What the child may not set (a higher priority,
a lower OOM score, without privilege) is the reason the client runs in-process instead: a child
must never run with more than its client has. Standard library only (ctypes for ioprio)."""
# ruff: noqa: PTH123

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Callable
from typing import Any

IOPRIO_WHO_PROCESS = 1
# (ioprio_set, ioprio_get) per machine; the generic table's for arm64, riscv64, loongarch64
IOPRIO_CALLS = {
    "x86_64": (251, 252), "i386": (289, 290), "i686": (289, 290), "aarch64": (30, 31),
    "riscv64": (30, 31), "loongarch64": (30, 31), "armv7l": (314, 315), "armv8l": (314, 315),
    "ppc64le": (273, 274), "ppc64": (273, 274), "s390x": (282, 283),
}  # fmt: skip


class Unknown(OSError):
    """An attribute this machine gives no way to read or set."""


def _syscall(number: int, *args: int) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    result = int(libc.syscall(number, *args))
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return result


def _ioprio_call(which: int) -> int:
    calls = IOPRIO_CALLS.get(platform.machine())
    if calls is None:
        raise Unknown(f"no ioprio calls known for {platform.machine()}")
    return calls[which]


def ioprio(pid: int) -> int:
    return _syscall(_ioprio_call(1), IOPRIO_WHO_PROCESS, pid)


def set_ioprio(value: int) -> None:
    _syscall(_ioprio_call(0), IOPRIO_WHO_PROCESS, 0, value)


def oom_score_adj(pid: int) -> int:
    with open(f"/proc/{pid or 'self'}/oom_score_adj", "rb") as f:
        return int(f.read())


def set_oom_score_adj(value: int) -> None:
    with open("/proc/self/oom_score_adj", "w", encoding="ascii") as f:
        f.write(str(value))


def policy(pid: int) -> tuple[int, int]:
    return os.sched_getscheduler(pid), os.sched_getparam(pid).sched_priority


def set_policy(value: tuple[int, int]) -> None:
    os.sched_setscheduler(0, value[0], os.sched_param(value[1]))


def niceness(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def set_niceness(value: int) -> None:
    os.setpriority(os.PRIO_PROCESS, 0, value)


def set_affinity(value: set[int]) -> None:
    os.sched_setaffinity(0, value)


# in the order they are set: the policy before the niceness it keeps; the OOM score last
ATTRIBUTES: tuple[tuple[str, Callable[[int], Any], Callable[[Any], None]], ...] = (
    ("CPU affinity", os.sched_getaffinity, set_affinity),
    ("I/O priority", ioprio, set_ioprio),
    ("scheduling policy", policy, set_policy),
    ("niceness", niceness, set_niceness),
    ("OOM score adjustment", oom_score_adj, set_oom_score_adj),
)


def take(pid: int) -> str | None:
    """Set this process's scheduling to process `pid`'s; why it could not (None: it did)."""
    for name, get, put in ATTRIBUTES:
        try:
            theirs = get(pid)
            if theirs != get(0):
                put(theirs)
        except OSError as e:
            return f"the client's {name} cannot be taken ({e.strerror or e})"
    return None
