"""Putting a snapshot's files back into the workspace (`rewind --code`).

Written here rather than by `git checkout` so that every write is checked: nothing is written
through a symbolic link or outside the workspace, and a file the pre-rewind snapshot does not
hold (an ignored or oversized one, which a later rewind could not bring back) is left alone and
named instead of being overwritten. Every folder is opened in the one above it without following
a link, and every file made or removed through that open folder: a folder swapped for a link
while the rewind runs (a confined command may still be running) cannot send a write outside.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field

from agent_cli.ext.checkpoints.git import ShadowGit

LINK, EXECUTABLE, GITLINK = "120000", "100755", "160000"


@dataclass
class RestoredFiles:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    left_alone: list[str] = field(default_factory=list)  # "path: why"


@dataclass
class _Change:
    status: str
    new_mode: str
    new_sha: str
    path: str


def _raw_changes(git: ShadowGit, old_tree: str, new_tree: str) -> list[_Change]:
    out = git.run("diff-tree", "-r", "-z", "--raw", "--no-renames", old_tree, new_tree)
    parts = out.split(b"\0")
    changes = []
    for meta, path in zip(parts[0::2], parts[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        _, new_mode, _, new_sha, status = meta[1:].decode().split(" ")
        changes.append(_Change(status[0], new_mode, new_sha, os.fsdecode(path)))
    return changes


def read_blobs(git: ShadowGit, shas: list[str]) -> dict[str, bytes]:
    """Many blobs in one `git cat-file --batch` call."""
    if not shas:
        return {}
    out = git.run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in shas).encode())
    blobs, pos = {}, 0
    for sha in shas:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split(b" ")[2])
        blobs[sha] = out[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return blobs


def restore_tree(git: ShadowGit, current_tree: str, target_tree: str) -> RestoredFiles:
    """Make the workspace's tracked files those of `target_tree`; `current_tree` is a snapshot
    taken just before (so everything replaced here can be brought back)."""
    result = RestoredFiles()
    changes = [c for c in _raw_changes(git, current_tree, target_tree) if c.new_mode != GITLINK]
    root = os.open(git.work_tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for change in changes:
            if change.status == "D" and _remove(root, change.path.split("/")):
                result.removed.append(change.path)
        writes = [c for c in changes if c.status != "D"]
        blobs = read_blobs(git, sorted({c.new_sha for c in writes}))
        for change in writes:
            problem = _write(root, change, blobs[change.new_sha])
            if problem:
                result.left_alone.append(f"{change.path}: {problem}")
            else:
                result.written.append(change.path)
    finally:
        os.close(root)
    return result


class _Blocked(Exception):
    """A folder on the way is a link or a file (or went away): the message says which."""


def _folders(root: int, parts: list[str], create: bool) -> list[int]:
    """Descriptors of the workspace and of each folder in `parts` below it, each opened in the
    one before with O_NOFOLLOW: what is checked is what is written into, even if a folder is
    swapped for a link meanwhile. Missing folders are made when `create`; _Blocked otherwise."""
    fds = [os.dup(root)]
    try:
        for depth, part in enumerate(parts, 1):
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fds[-1])
            try:
                fds.append(os.open(part, _FOLDER, dir_fd=fds[-1]))
            except OSError as e:
                why = _why(_mode(fds[-1], part), e)
                raise _Blocked(f"{'/'.join(parts[:depth])} {why}") from e
    except BaseException:
        _close(fds)
        raise
    return fds


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _why(mode: int | None, error: OSError) -> str:
    if mode is not None and stat.S_ISLNK(mode):
        return "is a symbolic link; not written through it"
    if mode is not None and not stat.S_ISDIR(mode):
        return "is a file"
    return f"could not be opened ({error.strerror})"


def _close(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def _remove(root: int, parts: list[str]) -> bool:
    try:
        fds = _folders(root, parts[:-1], create=False)
    except _Blocked:
        return False
    try:
        if not _is_file_or_link(fds[-1], parts[-1]):
            return False
        os.unlink(parts[-1], dir_fd=fds[-1])
        # folders the turn created go with their last file
        for depth in range(len(parts) - 1, 0, -1):
            try:
                os.rmdir(parts[depth - 1], dir_fd=fds[depth - 1])
            except OSError:
                break
        return True
    finally:
        _close(fds)


def _write(root: int, change: _Change, data: bytes) -> str | None:
    parts = change.path.split("/")
    try:
        fds = _folders(root, parts[:-1], create=True)
    except _Blocked as e:
        return str(e)
    try:
        return _write_in(fds[-1], parts[-1], change, data)
    except FileExistsError:  # something was put there while this ran
        return "appeared while restoring; left as it is"
    finally:
        _close(fds)


def _write_in(folder: int, name: str, change: _Change, data: bytes) -> str | None:
    mode = _mode(folder, name)
    if mode is not None and stat.S_ISDIR(mode):
        try:
            os.rmdir(name, dir_fd=folder)
        except OSError:
            return "a folder with other files is in the way"
    elif mode is not None:
        if change.status == "A":  # not in the pre-rewind snapshot: it could not come back
            return "exists and is not in the snapshot; left as it is"
        os.unlink(name, dir_fd=folder)
    if change.new_mode == LINK:
        os.symlink(os.fsdecode(data), name, dir_fd=folder)
        return None
    perms = 0o777 if change.new_mode == EXECUTABLE else 0o666  # less the umask, as git does
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, perms, dir_fd=folder)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return None


def _mode(folder: int, name: str) -> int | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except OSError:
        return None


def _is_file_or_link(folder: int, name: str) -> bool:
    mode = _mode(folder, name)
    return mode is not None and (stat.S_ISREG(mode) or stat.S_ISLNK(mode))
