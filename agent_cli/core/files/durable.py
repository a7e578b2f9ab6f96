"""What a run wrote reaches the disk before the process ends without the interpreter's teardown
(`os._exit`): the state folders are noted as the composition root opens them, and every file
in them written since the process started is fsynced at the end. Standard library only (the
thin client in cli/entry.py imports it), and no pathlib: it costs a client 7 ms to import."""

from __future__ import annotations

import os
import time

STARTED = time.time()
_FOLDERS: list[str] = []


def watch(folder: os.PathLike[str] | str) -> None:
    """Files under `folder` written from now on are synced by `sync_written`."""
    path = os.fspath(folder)
    if path not in _FOLDERS:
        _FOLDERS.append(path)


def _fsync(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # a file system that cannot sync: nothing more can be done
    finally:
        os.close(fd)


def written_since(folder: str, since: float) -> list[str]:
    found: list[str] = []
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)  # noqa: PTH118 - pathlib is what this module avoids
            try:
                if os.stat(path).st_mtime >= since - 1:  # noqa: PTH116 - a coarse clock: 1 s margin
                    found.append(path)
            except OSError:
                continue
        found.append(root)  # a new file's directory entry is synced with its folder
    return found


def sync_written(since: float | None = None) -> int:
    """fsync every file written under the watched folders since `since` (default: since the
    process, or the warm process's child, started); how many."""
    since = STARTED if since is None else since
    paths = [p for f in _FOLDERS if os.path.isdir(f) for p in written_since(f, since)]  # noqa: PTH112
    for path in paths:
        _fsync(path)
    return len(paths)
