"""What a run wrote reaches the disk before the process ends without the interpreter's teardown
(`os._exit`): the state folders are noted as the composition root opens them, and every file
in them written since the process started is fsynced at the end."""

from __future__ import annotations

import os
import time
from pathlib import Path

STARTED = time.time()
_FOLDERS: list[Path] = []


def watch(folder: Path) -> None:
    """Files under `folder` written from now on are synced by `sync_written`."""
    if folder not in _FOLDERS:
        _FOLDERS.append(folder)


def _fsync(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # a file system that cannot sync (a pipe, /proc): nothing more can be done
    finally:
        os.close(fd)


def written_since(folder: Path, since: float) -> list[str]:
    found: list[str] = []
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            try:
                if path.stat().st_mtime >= since - 1:  # a coarse clock: a second of margin
                    found.append(str(path))
            except OSError:
                continue
        found.append(root)  # a new file's directory entry is synced with its folder
    return found


def sync_written(since: float | None = None) -> int:
    """fsync every file written under the watched folders since `since` (default: since the
    process, or the warm process's child, started); how many."""
    since = STARTED if since is None else since
    paths = [p for folder in _FOLDERS if folder.is_dir() for p in written_since(folder, since)]
    for path in paths:
        _fsync(path)
    return len(paths)
