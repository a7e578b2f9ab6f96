"""Where the warm process lives and who may use it: a private directory per user (0700, owned
by the user), the socket (0600), the lock, the log; the version key that retires a stale
process; and whether the warm process is wanted at all. Standard library only."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

SOCKET, LOCK, LOG = "server.sock", "server.lock", "server.log"
DEFAULT_IDLE_MINUTES = 15.0
PACKAGE_DIR = Path(__file__).resolve().parents[2]


def private_dir() -> Path:
    """`$XDG_RUNTIME_DIR/agent`, else `/tmp/agent-<uid>`: created 0700; PermissionError when it
    is not the user's own or others may enter it."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        folder = Path(runtime) / "agent"
    else:
        folder = Path(os.environ.get("TMPDIR") or "/tmp") / f"agent-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = folder.lstat()
    if not folder.is_dir() or folder.is_symlink() or info.st_uid != os.getuid():
        raise PermissionError(f"{folder} is not a directory of this user's")
    if info.st_mode & 0o077:
        raise PermissionError(f"{folder} is open to others (mode {info.st_mode & 0o777:o})")
    return folder


def version_key() -> str:
    """What the warm process must share with a client to serve it: the package's version and
    place, the interpreter, the import path, and the source files' modification times (an
    editable install's edit or upgrade retires the process)."""
    from agent_cli import __version__

    newest, count = 0, 0
    for root, _dirs, files in os.walk(PACKAGE_DIR):
        for name in files:
            if name.endswith(".py"):
                newest = max(newest, (Path(root) / name).stat().st_mtime_ns)
                count += 1
    parts = [__version__, str(PACKAGE_DIR), sys.executable, sys.version]
    parts += [os.environ.get("PYTHONPATH", ""), str(newest), str(count)]
    return "|".join(parts)


@dataclass(frozen=True)
class ServerChoice:
    enabled: bool
    idle_s: float
    why: str  # what decided it, for the log


def _user_settings() -> dict[str, object]:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    try:
        data = json.loads((Path(base) / "agent" / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # a broken settings file is reported by the in-process run
    section = data.get("server") if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def choice(env: dict[str, str] | os._Environ[str] = os.environ) -> ServerChoice:
    """`AGENT_NO_SERVER=1` turns it off, `AGENT_SERVER=1` on (tests opt in so); else `CI` set
    turns it off; else the user setting `server.enabled` (default on)."""
    section = _user_settings()
    idle = section.get("idle_minutes", DEFAULT_IDLE_MINUTES)
    idle_s = float(idle) * 60 if isinstance(idle, int | float) and idle > 0 else 900.0
    if env.get("AGENT_NO_SERVER", "") not in ("", "0"):
        return ServerChoice(False, idle_s, "AGENT_NO_SERVER")
    if env.get("AGENT_SERVER", "") not in ("", "0"):
        return ServerChoice(True, idle_s, "AGENT_SERVER")
    if env.get("CI"):
        return ServerChoice(False, idle_s, "CI")
    enabled = section.get("enabled", True)
    return ServerChoice(enabled is not False, idle_s, "settings")


def note(folder: Path | None, line: str) -> None:
    """One line in the warm process's log: why a run went in-process. Never on the screen."""
    if folder is None:
        return
    import time

    try:
        fd = os.open(folder / LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            os.write(fd, f"{stamp} client {os.getpid()}: {line}\n".encode())
        finally:
            os.close(fd)
    except OSError:
        pass
