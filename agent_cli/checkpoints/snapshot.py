"""Taking a snapshot: one `git status` against the store's own index finds what changed since
the last one; only those paths are hashed, so an unchanged tree costs about one `git status`.
Files over the size limit and nested repositories are left out and named."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.checkpoints.git import ShadowGit
from agent_cli.checkpoints.records import Skipped

STATUS = ("status", "--porcelain=v1", "-z", "-uall", "--no-renames", "--ignore-submodules=all")


@dataclass
class Snapshot:
    commit: str
    tree: str
    skipped: list[Skipped] = field(default_factory=list)
    changed: bool = False


@dataclass
class _Changes:
    update: list[str] = field(default_factory=list)  # added, modified or deleted
    drop: list[str] = field(default_factory=list)  # tracked, now too large: out of the index
    skipped: list[Skipped] = field(default_factory=list)
    index_moved: bool = False  # the index differs from HEAD (an update never committed)


def parse_status(out: bytes) -> list[tuple[str, str]]:
    """(XY, path) pairs of `git status --porcelain=v1 -z --no-renames`."""
    entries = []
    for item in out.split(b"\0"):
        if len(item) > 3:
            entries.append((item[:2].decode(), os.fsdecode(item[3:])))
    return entries


def _classify(work_tree: Path, entries: list[tuple[str, str]], max_bytes: int) -> _Changes:
    changes = _Changes()
    for xy, path in entries:
        if path.endswith("/"):  # a nested repository: its own git keeps it
            changes.skipped.append(Skipped(path=path, size=0, reason="nested repository"))
            continue
        if xy[0] not in " ?":
            changes.index_moved = True
        if xy[1] == " ":
            continue
        size = _size(work_tree / path)
        if size is not None and size > max_bytes:
            changes.skipped.append(Skipped(path=path, size=size))
            if xy != "??":
                changes.drop.append(path)
        else:
            changes.update.append(path)
    return changes


def _size(path: Path) -> int | None:
    """A regular file's size; 0 for a link (stored as a link, never followed); None if gone."""
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def take_snapshot(git: ShadowGit, max_bytes: int, message: str, ref: str) -> Snapshot:
    """The workspace now; a new commit (kept alive by `ref`) only if something changed."""
    head = head_of(git)
    changes = _classify(git.work_tree, parse_status(git.run(*STATUS)), max_bytes)
    if head and not (changes.update or changes.drop or changes.index_moved):
        return Snapshot(*head, changes.skipped)
    if changes.update:
        git.run("update-index", "--add", "--remove", "-z", "--stdin",
                stdin=_nul_joined(changes.update))
    if changes.drop:
        git.run("update-index", "--force-remove", "-z", "--stdin", stdin=_nul_joined(changes.drop))
    tree = git.run("write-tree").decode().strip()
    commit = git.run("commit-tree", tree, "-m", message).decode().strip()
    refs = f"update HEAD {commit}\nupdate {ref} {commit}\n"
    git.run("update-ref", "--stdin", stdin=refs.encode())
    return Snapshot(commit, tree, changes.skipped, changed=True)


def head_of(git: ShadowGit) -> tuple[str, str] | None:
    """(commit, tree) of the store's HEAD; None before the first snapshot."""
    out = git.run("show", "-s", "--format=%H %T", "HEAD", "--", check=False).decode().split()
    return (out[0], out[1]) if len(out) == 2 else None


def _nul_joined(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)
