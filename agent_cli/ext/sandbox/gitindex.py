"""The gitlinks (submodules) a repository's index records. `git status` runs `git status` in each
one whose folder holds a `.git`, which reads that `.git`'s config and runs its fsmonitor: a
confined command that made a nested repository and `git add`ed it would have the user's next
`git status` run its program. Their `.git` is protected as the repository's own is.

Read straight from `.git/index` (versions 2 to 4, split or not), cached by the file's identity:
a repository with no gitlink costs one read and a byte search when its index changes, nothing
otherwise. An index too large to read in a moment is None, "cannot tell" (settle moves it aside).
"""

from __future__ import annotations

import functools
import os
import stat
import struct
from pathlib import Path

GITLINK = 0o160000
_MODE_BYTES = struct.pack(">I", GITLINK)
MAX_INDEX_BYTES = 512 * 1024 * 1024  # Chromium's index is ~40 MiB
_FIXED = 40  # ctime, mtime, dev, ino, mode, uid, gid, size


def identity(index: str | Path) -> tuple[int, ...] | None:
    try:
        info = os.lstat(index)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def gitlinks(root: str | Path) -> tuple[str, ...] | None:
    """The gitlink paths (relative, `/`-separated) of `root/.git/index`; () when there is none
    or git could not read it either; None when it is too large to tell."""
    return gitlinks_of(Path(root, ".git", "index"))


@functools.lru_cache(maxsize=64)
def _read(index: Path, key: tuple[int, ...]) -> tuple[str, ...] | None:
    if key[2] > MAX_INDEX_BYTES:
        return None
    try:
        fd = os.open(index, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ()
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ()
        data = file.read(MAX_INDEX_BYTES)
    if _MODE_BYTES not in data and b"link" not in data:
        return ()
    for oid in (20, 32):  # sha1, or a sha256 repository's
        parsed = _parse(data, oid)
        if parsed is not None:
            found, shared = parsed
            more = gitlinks_of(index.with_name(f"sharedindex.{shared}")) if shared else ()
            return None if more is None else found + more  # split: most entries are shared
    return ()


def gitlinks_of(index: Path) -> tuple[str, ...] | None:
    key = identity(index)
    return () if key is None else _read(index, key)


def _parse(data: bytes, oid: int) -> tuple[tuple[str, ...], str | None] | None:
    """(the gitlinks, the shared index's name when split), or None when `data` is not an index
    with `oid`-byte object names."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    at, name, found = 12, b"", []
    try:
        for _ in range(count):
            (mode,) = struct.unpack(">I", data[at + 24 : at + 28])
            (flags,) = struct.unpack(">H", data[at + _FIXED + oid : at + _FIXED + oid + 2])
            start = at + _FIXED + oid + 2 + (2 if version >= 3 and flags & 0x4000 else 0)
            if version == 4:
                strip, start = _varint(data, start)
                end = data.index(b"\0", start)
                name = name[: len(name) - strip] + data[start:end]
                at = end + 1
            else:
                end = data.index(b"\0", start)
                name = data[start:end]
                at += (end - at + 8) // 8 * 8
            if mode == GITLINK:
                found.append(name.decode("utf-8", "surrogateescape"))
        shared = _extensions(data, at, oid)
    except (struct.error, ValueError, IndexError):
        return None
    return None if shared is None else (tuple(found), shared or None)


def _extensions(data: bytes, at: int, oid: int) -> str | None:
    """The split index's shared file name (`link`), "" without one, None when the extensions
    do not end exactly where the `oid`-byte checksum starts (a sha256 index read as sha1
    parses into nonsense that ends elsewhere)."""
    end, shared = len(data) - oid, ""
    while at < end:
        if at + 8 > end:
            return None
        (size,) = struct.unpack(">I", data[at + 4 : at + 8])
        if data[at : at + 4] == b"link" and size >= oid:
            shared = data[at + 8 : at + 8 + oid].hex()
        at += 8 + size
    return shared if at == end else None


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (index v4's prefix length)."""
    byte = data[at]
    value, at = byte & 0x7F, at + 1
    while byte & 0x80:
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at
