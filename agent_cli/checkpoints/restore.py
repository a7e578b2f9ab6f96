"""Putting a snapshot's files back into the workspace (`rewind --code`).

Written here rather than by `git checkout` so that every write is checked: nothing is written
through a symbolic link or outside the workspace, and a file the pre-rewind snapshot does not
hold (an ignored or oversized one, which a later rewind could not bring back) is left alone and
named instead of being overwritten.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.checkpoints.git import ShadowGit

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
    root = git.work_tree
    result = RestoredFiles()
    changes = [c for c in _raw_changes(git, current_tree, target_tree) if c.new_mode != GITLINK]
    for change in changes:
        if change.status == "D" and _remove(root, change.path):
            result.removed.append(change.path)
    writes = [c for c in changes if c.status != "D"]
    blobs = read_blobs(git, sorted({c.new_sha for c in writes}))
    for change in writes:
        problem = _write(root, change, blobs[change.new_sha])
        if problem:
            result.left_alone.append(f"{change.path}: {problem}")
        else:
            result.written.append(change.path)
    return result


def _remove(root: Path, relative: str) -> bool:
    path = root / relative
    if _unsafe_parent(root, path) or not _is_file_or_link(path):
        return False
    path.unlink()
    for parent in path.parents:  # folders the turn created go with their last file
        if parent == root or not parent.is_relative_to(root):
            break
        try:
            parent.rmdir()
        except OSError:
            break
    return True


def _write(root: Path, change: _Change, data: bytes) -> str | None:
    path = root / change.path
    problem = _make_parents(root, path)
    if problem:
        return problem
    if path.is_dir() and not path.is_symlink():
        try:
            path.rmdir()
        except OSError:
            return "a folder with other files is in the way"
    elif os.path.lexists(path):
        if change.status == "A":  # not in the pre-rewind snapshot: it could not come back
            return "exists and is not in the snapshot; left as it is"
        path.unlink()
    if change.new_mode == LINK:
        path.symlink_to(os.fsdecode(data))
        return None
    mode = 0o777 if change.new_mode == EXECUTABLE else 0o666  # less the umask, as git does
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return None


def _make_parents(root: Path, path: Path) -> str | None:
    """Create the missing folders of `path` below root; refuse to pass through a link or file."""
    current = root
    for part in path.relative_to(root).parts[:-1]:
        current = current / part
        if current.is_symlink():
            return f"{current.relative_to(root)} is a symbolic link; not written through it"
        if not current.exists():
            current.mkdir()
        elif not current.is_dir():
            return f"{current.relative_to(root)} is a file"
    return None


def _unsafe_parent(root: Path, path: Path) -> bool:
    current = root
    for part in path.relative_to(root).parts[:-1]:
        current = current / part
        if current.is_symlink() or not current.is_dir():
            return True
    return False


def _is_file_or_link(path: Path) -> bool:
    try:
        mode = path.lstat().st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode)
