"""One writer per session: the process that appends to a transcript holds an exclusive flock
on the session's lock file (`.transcripts/owners/<id>.lock`) from before its first write to
its end. The kernel lets go when the holder dies, however it dies (kill -9 included), so a
lock is never stale. The lock file says the holder's pid, for the message a forking resume
shows; the lock, not the file's content, decides.

flock is per open file description and the descriptor is close-on-exec: a tool the agent
starts never holds it, and a second open in the same process (a second runtime) is refused
as another process's would be."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from agent_cli.core.files.paths import Paths, ensure_state_folder

OWNERS = "owners"


def lock_path(paths: Paths, session_id: str) -> Path:
    return paths.transcripts / OWNERS / f"{session_id}.lock"


class SessionOwner:
    """The held lock of one session; `release()` (or the process's end) lets it go."""

    def __init__(self, session_id: str, path: Path, fd: int) -> None:
        self.session_id, self.path, self._fd = session_id, path, fd

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def release(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)  # closing the only descriptor of the description drops the flock

    def take_again(self) -> bool:
        """After a `release()`: hold it again (False if another process took it meanwhile)."""
        again = take(self.path, self.session_id)
        if again is None:
            return False
        self._fd, again._fd = again._fd, -1
        return True


def take(path: Path, session_id: str) -> SessionOwner | None:
    """The lock at `path`, held now; None when another holder has it."""
    ensure_state_folder(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    with contextlib.suppress(OSError):  # the pid is only what a message names
        pid = f"{os.getpid()}\n".encode()
        os.pwrite(fd, pid, 0)  # then cut: a reader meanwhile never finds the file empty
        os.ftruncate(fd, len(pid))
    return SessionOwner(session_id, path, fd)


def take_session(paths: Paths, session_id: str) -> SessionOwner | None:
    return take(lock_path(paths, session_id), session_id)


def holder_pid(paths: Paths, session_id: str) -> int | None:
    """The pid the lock file names (the holder's, while it is held)."""
    try:
        text = lock_path(paths, session_id).read_text(encoding="ascii", errors="replace")
        return int(text.split()[0])  # its first line: the rest may be an older pid's tail
    except (OSError, ValueError, IndexError):
        return None
