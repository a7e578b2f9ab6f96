"""Paths looked at without following links: a confined command, or the repository itself, may
have planted a link anywhere in the workspace, and bwrap follows a link it binds."""

# ruff: noqa: PTH118 - plain strings: this runs before every confined command

from __future__ import annotations

import functools
import hashlib
import os
import stat
import tempfile
from pathlib import Path


def lstat(path: str | Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def kind(path: str | Path) -> int | None:
    """S_IFDIR, S_IFREG, S_IFLNK ... of `path` itself; None when nothing is there."""
    info = lstat(path)
    return None if info is None else stat.S_IFMT(info.st_mode)


def chain(root: str, parts: tuple[str, ...]) -> list[os.stat_result | None]:
    """The lstat of each component below `root`, up to the first that is missing, a link or
    not a directory (included)."""
    out: list[os.stat_result | None] = []
    path = root
    for part in parts:
        path = os.path.join(path, part)
        info = lstat(path)
        out.append(info)
        if info is None or not stat.S_ISDIR(info.st_mode):
            break
    return out


def link_free(root: Path, path: Path) -> bool:
    """No link on the way from `root` (itself trusted) down to `path`, as far as it exists."""
    found = chain(str(root), path.relative_to(root).parts)
    return not any(info is not None and stat.S_ISLNK(info.st_mode) for info in found)


def inside(path: str, roots: list[str]) -> tuple[str, tuple[str, ...]] | None:
    """(root, components) of `path` under the deepest of `roots` it lies in, below it."""
    best: tuple[str, tuple[str, ...]] | None = None
    path = os.path.normpath(path)
    for root in roots:
        prefix = root.rstrip("/") + "/"
        if path.startswith(prefix) and len(path) > len(prefix):
            parts = tuple(p for p in path[len(prefix) :].split("/") if p)
            if best is None or len(parts) < len(best[1]):
                best = (root, parts)
    return best


def _cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


@functools.cache
def private_tmp(workspace: Path) -> Path:
    """A `$TMPDIR` of the workspace's own outside it (0700, in the user's cache): used when its
    `.agent/tmp` cannot be trusted. A fresh folder in /tmp when the cache cannot hold one."""
    key = hashlib.sha256(str(workspace).encode()).hexdigest()[:16]
    cache = _cache_home()
    folder = cache / "agent" / "sandbox-tmp" / key
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and link_free(cache, folder):
            folder.chmod(0o700)
            return folder
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="agent-tmp-"))
