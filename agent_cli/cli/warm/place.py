"""Where the warm process lives and who may use it: a private directory per user (0700, owned
by the user), the socket (0600), the lock, the log; the version key that retires a stale
process; and whether the warm process is wanted at all. Standard library only, and not even
pathlib or dataclasses (with what they import they cost a client 15-30 ms): paths are strings.
"""
# ruff: noqa: PTH100, PTH102, PTH111, PTH112, PTH116, PTH118, PTH120, PTH123, SIM105

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Mapping

SOCKET, LOCK, LOG = "server.sock", "server.lock", "server.log"
DEFAULT_IDLE_MINUTES = 15.0
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def private_dir() -> str:
    """`$XDG_RUNTIME_DIR/agent`, else `/tmp/agent-<uid>`: created 0700; PermissionError when it
    is not the user's own or others may enter it."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        folder = os.path.join(runtime, "agent")
    else:
        folder = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"agent-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
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
                newest = max(newest, os.stat(os.path.join(root, name)).st_mtime_ns)
                count += 1
    parts = [__version__, PACKAGE_DIR, sys.executable, sys.version]
    parts += [os.environ.get("PYTHONPATH", ""), str(newest), str(count)]
    return "|".join(parts)


class ServerChoice:
    """Whether to use the warm process, its idle time, and what decided it (for the log)."""

    __slots__ = ("enabled", "idle_s", "why")

    def __init__(self, enabled: bool, idle_s: float, why: str) -> None:
        self.enabled, self.idle_s, self.why = enabled, idle_s, why


def _user_settings() -> dict[str, object]:
    """The `server` section of the user's settings.json (the one Settings model declares it,
    as ServerSettings); a broken file is reported by the in-process run, not here."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    try:
        with open(os.path.join(base, "agent", "settings.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    section = data.get("server") if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def supported() -> bool:
    """Linux only: a client is judged by SO_PEERCRED and /proc, its child by pidfds."""
    return sys.platform.startswith("linux")


def choice(env: Mapping[str, str] = os.environ) -> ServerChoice:
    """Off where it is not supported, quietly; `AGENT_NO_SERVER=1` turns it off,
    `AGENT_SERVER=1` on (tests opt in so); else `CI` set turns it off; else the user setting
    `server.enabled` (default on)."""
    section = _user_settings()
    idle = section.get("idle_minutes", DEFAULT_IDLE_MINUTES)
    ok = isinstance(idle, int | float) and not isinstance(idle, bool) and idle > 0
    idle_s = float(idle) * 60 if ok else DEFAULT_IDLE_MINUTES * 60  # type: ignore[arg-type]
    if not supported():
        return ServerChoice(False, idle_s, sys.platform)
    if env.get("AGENT_NO_SERVER", "") not in ("", "0"):
        return ServerChoice(False, idle_s, "AGENT_NO_SERVER")
    if env.get("AGENT_SERVER", "") not in ("", "0"):
        return ServerChoice(True, idle_s, "AGENT_SERVER")
    if env.get("CI"):
        return ServerChoice(False, idle_s, "CI")
    return ServerChoice(section.get("enabled", True) is not False, idle_s, "settings")


def note(folder: str | None, line: str) -> None:
    """One line in the warm process's log: why a run went in-process. Never on the screen."""
    if folder is None:
        return
    import time

    try:
        fd = os.open(os.path.join(folder, LOG), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            os.write(fd, f"{stamp} client {os.getpid()}: {line}\n".encode())
        finally:
            os.close(fd)
    except OSError:
        pass
