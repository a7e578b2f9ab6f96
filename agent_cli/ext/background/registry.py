"""This user's background sessions, from any directory: one owner-only JSON record per session
in the agent's state folder in HOME (`$XDG_STATE_HOME/agent/background`, else
`~/.local/state/agent/background`, 0700; each file 0600, written whole by a rename).

A record is changed under its own lock (the launcher and the session both write it); a name is
chosen under the folder's lock, so two launchers never take the same one. What a record says
of a live state (`working`, `waiting: ...`, `idle`) is checked when it is read: a process that
is gone, or whose pid now names another process (its start time differs), is `stopped`."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import time
from pathlib import Path

TYPE_CHECKING = False  # typing itself is not imported: `agent ps` saves its 10 ms

if TYPE_CHECKING:  # `agent ps` answers with this module alone: what it does not need is lazy
    from collections.abc import Iterator
    from typing import Any

LIVE = ("working", "waiting: approval", "waiting: question", "waiting: plan", "idle")
ENDED = ("done", "failed", "stopped")
GONE = "the process ended without saying so (killed, or the machine restarted)"
REUSED = "its pid now belongs to another process (the session's process is gone)"


def folder() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    where = Path(base) / "agent" / "background"
    where.mkdir(parents=True, exist_ok=True, mode=0o700)
    where.chmod(0o700)
    return where


def key(workspace: Path, name: str) -> str:
    """The record's file name: names are unique per workspace, not per user."""
    import hashlib

    digest = hashlib.sha256(str(workspace).encode()).hexdigest()[:8]
    return f"{name}-{digest}"


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # the lock goes with the descriptor


def process_start(pid: int) -> str | None:
    """The process's start time (clock ticks since boot, /proc/PID/stat's 22nd field); None
    when there is no such process or it is a zombie (it has ended, nobody reaped it yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return _start_elsewhere(pid)
    fields = stat[stat.rfind(")") + 2 :].split()
    return None if fields[0] in ("Z", "X") else fields[19]


def _start_elsewhere(pid: int) -> str | None:
    """Without /proc (macOS) the pid's liveness is all there is to go on."""
    if Path("/proc/self/stat").exists():
        return None  # /proc exists: the process does not
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return "?"


class Record:
    __slots__ = ("data", "path")

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path, self.data = path, data

    def __repr__(self) -> str:
        return f"Record({self.path!r}, {self.data!r})"

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def state(self) -> str:
        return str(self.data.get("state", "working"))

    @property
    def pid(self) -> int | None:
        pid = self.data.get("pid")
        return pid if isinstance(pid, int) else None

    def alive(self) -> bool:
        pid = self.pid
        if pid is None:
            return False
        started = process_start(pid)
        return started is not None and started in (self.data.get("process_start"), "?")

    def signal(self, signum: int) -> None:
        """`signum` to the session's process and no other: a pidfd taken, then the process it
        holds checked to be the recorded one (a pid reused meanwhile is left alone)."""
        pid = self.pid
        if pid is None:
            return
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            return
        except (OSError, AttributeError):  # no pidfds here: the start time checked just before
            if self.alive():
                os.kill(pid, signum)
            return
        try:
            if self.alive():
                signal.pidfd_send_signal(fd, signum)
        finally:
            os.close(fd)

    def as_read(self) -> Record:
        """The record as it is now: a live state whose process is gone reads `stopped`."""
        if self.state not in LIVE or self.alive():
            return self
        started = None if self.pid is None else process_start(self.pid)
        reason = GONE if started is None else REUSED
        return Record(self.path, {**self.data, "state": "stopped", "reason": reason})


def read(path: Path) -> Record | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Record(path, data) if isinstance(data, dict) and "name" in data else None


def records() -> list[Record]:
    """Every recorded session, oldest first, as it is now."""
    found = [read(p) for p in folder().glob("*.json")]
    live = [r.as_read() for r in found if r is not None]
    return sorted(live, key=lambda r: (float(r.data.get("created", 0)), r.name))


def update(path: Path, **changes: Any) -> dict[str, Any]:
    """The record at `path` with `changes`, written whole; a new state restarts `since`."""
    from agent_cli.core.files.private_file import write_private

    with locked(path.with_suffix(".lock")):
        current = read(path)
        data = dict(current.data) if current is not None else {}
        if "state" in changes and changes["state"] != data.get("state"):
            changes.setdefault("since", time.time())
        data.update(changes)
        write_private(path, json.dumps(data, indent=1) + "\n")
        return data


def forget(record: Record) -> None:
    """Its files gone (the messages nobody read too), the socket a killed session left."""
    import shutil

    for suffix in (".json", ".log", ".lock"):
        record.path.with_suffix(suffix).unlink(missing_ok=True)
    shutil.rmtree(record.path.with_suffix(".inbox"), ignore_errors=True)
    if isinstance(socket := record.data.get("socket"), str):
        Path(socket).unlink(missing_ok=True)
