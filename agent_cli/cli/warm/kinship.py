"""Whether a client runs in the same kernel context as the warm process, so that a child forked
here keeps every promise the client's own process would: the same namespaces (a sandbox's
network or mount namespace), root, cgroup (a memory or CPU cap), resource limits (ulimit,
prlimit), seccomp mode and filters, no_new_privs, LSM label, ids, groups and capabilities.

Everything is read by the server from the kernel for the peer's pid (SO_PEERCRED, then
/proc/<pid>/...), never taken from what the client says. A fact the server cannot read about
the client, but can about itself, counts as a difference. Standard library only."""
# ruff: noqa: PTH116, PTH123

from __future__ import annotations

import os
import signal
import socket

from agent_cli.cli.warm.wire import peer_pid, peer_pidfd

NAMESPACES = ("cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts")
STATUS_FIELDS = (
    "Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
    "NoNewPrivs", "Seccomp", "Seccomp_filters",
)  # fmt: skip
FILES = ("cgroup", "limits", "attr/current")


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError as e:
        return f"unreadable ({e.strerror or e})"


def _identity(path: str) -> str:
    try:
        info = os.stat(path)
    except OSError as e:
        return f"unreadable ({e.strerror or e})"
    return f"{info.st_dev}:{info.st_ino}"


def _status(text: str) -> dict[str, str]:
    fields = {}
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name in STATUS_FIELDS:
            fields[name] = " ".join(value.split())
    return fields


def context_of(pid: int | str) -> dict[str, str]:
    """The facts of process `pid` ("self": this one) that a served run must share."""
    base = f"/proc/{pid}"
    facts = {f"ns/{name}": _identity(f"{base}/ns/{name}") for name in NAMESPACES}
    facts["root"] = _identity(f"{base}/root/")
    for name in FILES:
        facts[name] = _read(f"{base}/{name}")
    status = _read(f"{base}/status")
    found = _status(status)
    for name in STATUS_FIELDS:
        facts[f"status/{name}"] = found.get(name, "absent")
    return facts


class Kinship:
    """The warm process's own context, read once; `differs(pid)` names what a client does not
    share with it (None: it may be served)."""

    def __init__(self) -> None:
        self.own = context_of("self")

    def of_peer(self, sock: socket.socket) -> str | None:
        """What the process at the other end of `sock` does not share with this one. Its pid
        is the kernel's (SO_PEERCRED); a pidfd of it, still alive once its context was read,
        proves the pid was not a newer process's by then (a client that ended, its pid taken
        by another, would be judged by the other's context)."""
        pid = peer_pid(sock)
        pidfd = peer_pidfd(sock, pid) if pid > 0 else None
        try:
            why = self.differs(pid)
            if why is None and pidfd is not None and not _alive(pidfd):
                why = "the client ended before it was checked"
            return why
        finally:
            if pidfd is not None:
                os.close(pidfd)

    def differs(self, pid: int) -> str | None:
        if pid <= 0:
            return "the client's pid is unknown (another pid namespace)"
        theirs = context_of(pid)
        for name, value in self.own.items():
            if theirs.get(name) != value:
                return _difference(name, value, theirs.get(name, ""))
        return None


def _difference(name: str, ours: str, theirs: str) -> str:
    """What differs, in words: for the limits, which one."""
    if name == "limits":
        for mine, its in zip(ours.splitlines(), theirs.splitlines(), strict=False):
            if mine != its:
                return f"limits differ ({mine[:26].strip()})"
    return f"{name} differs"


def _alive(pidfd: int) -> bool:
    """Signal 0 through the pidfd: it fails once that process has been reaped (a zombie still
    holds its pid, and its context reads as unreadable)."""
    try:
        signal.pidfd_send_signal(pidfd, 0)
    except OSError:
        return False
    return True
