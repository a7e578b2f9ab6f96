"""Taking a snapshot: one `git status` against the store's own index finds what changed since
the last one; only those paths are hashed, so an unchanged tree costs about one `git status`.
Files over the size limit and nested repositories are left out and named."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.ext.checkpoints.git import ShadowGit
from agent_cli.ext.checkpoints.records import Skipped

# untracked folders come back as one `dir/` entry (-unormal: about twice as fast as -uall on a
# big tree) and are listed file by file only when there are some
STATUS = ("status", "--porcelain=v1", "-z", "-unormal", "--no-renames", "--ignore-submodules=all")
UNTRACKED = ("ls-files", "-z", "--others", "--exclude-standard", "--")
# every blob of one update goes into one pack instead of a loose file each: a cold snapshot of
# 10,000 files is ~5x faster. Only for updates: the same threshold makes diffs call files binary.
PACKED = ("-c", "core.bigFileThreshold=1")
# then the small packs are rolled into one (geometric: by object count, so the big first pack
# is left alone), without delta search: quick, and object lookups stay quick
MAX_PACKS = 64
HEAD_CACHE = "head"  # "<commit> <tree>" of HEAD, so an unchanged snapshot runs git only once


@dataclass
class WorkspaceSnapshot:
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
    links: dict[str, bool] = {}
    for xy, path in entries:
        if path.endswith("/"):  # a nested repository: its own git keeps it
            changes.skipped.append(Skipped(path=path, size=0, reason="nested repository"))
            continue
        if xy[0] not in " ?":
            changes.index_moved = True
        if xy[1] == " ":
            continue
        if _beyond_link(work_tree, path, links):  # git refuses to add it: the file is gone
            changes.drop.append(path)  # as git sees the tree (the link is stored itself)
            continue
        size = _size(work_tree / path)
        if size is not None and size > max_bytes:
            changes.skipped.append(Skipped(path=path, size=size))
            if xy != "??":
                changes.drop.append(path)
        else:
            changes.update.append(path)
    return changes


def _beyond_link(work_tree: Path, path: str, links: dict[str, bool]) -> bool:
    """Is a folder on the way to `path` a symbolic link (a folder replaced by one)?
    `links` remembers the folders looked at."""
    parent = path.rpartition("/")[0]
    if not parent:
        return False
    if parent not in links:
        links[parent] = (work_tree / parent).is_symlink() or _beyond_link(work_tree, parent, links)
    return links[parent]


def _size(path: Path) -> int | None:
    """A regular file's size; 0 for a link (stored as a link, never followed); None if gone."""
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def status_entries(git: ShadowGit) -> list[tuple[str, str]]:
    entries = parse_status(git.run(*STATUS))
    folders = [path for xy, path in entries if xy == "??" and path.endswith("/")]
    if not folders:
        return entries
    inside = git.run(*UNTRACKED, *folders).split(b"\0")
    files = [("??", os.fsdecode(p)) for p in inside if p]
    return [e for e in entries if not (e[0] == "??" and e[1].endswith("/"))] + files


def take_snapshot(git: ShadowGit, max_bytes: int, message: str, ref: str) -> WorkspaceSnapshot:
    """The workspace now; a new commit (kept alive by `ref`) only if something changed."""
    head = head_of(git)
    changes = _classify(git.work_tree, status_entries(git), max_bytes)
    if head and not (changes.update or changes.drop or changes.index_moved):
        return WorkspaceSnapshot(*head, changes.skipped)
    if changes.drop:  # first: a link that replaced a folder is added once its files are out
        git.run("update-index", "--force-remove", "-z", "--stdin", stdin=_nul_joined(changes.drop))
    if changes.update:
        git.run(
            *PACKED,
            "update-index",
            "--add",
            "--remove",
            "-z",
            "--stdin",
            stdin=_nul_joined(changes.update),
        )
    tree = git.run("write-tree").decode().strip()
    commit = git.run("commit-tree", tree, "-m", message).decode().strip()
    refs = f"update HEAD {commit}\nupdate {ref} {commit}\n"
    git.run("update-ref", "--stdin", stdin=refs.encode())
    remember_head(git, commit, tree)
    return WorkspaceSnapshot(commit, tree, changes.skipped, changed=True)


def consolidate(git: ShadowGit) -> None:
    if len(list((git.git_dir / "objects" / "pack").glob("*.pack"))) > MAX_PACKS:
        git.run("repack", "-d", "-q", "--geometric=2", "--window=0", "--no-write-bitmap-index")


def head_of(git: ShadowGit) -> tuple[str, str] | None:
    """(commit, tree) of the store's HEAD; None before the first snapshot. The tree comes from
    the cache only while the cache names the commit HEAD's ref file holds."""
    commit = _ref_file_commit(git.git_dir)
    try:
        cached = (git.git_dir / HEAD_CACHE).read_text().split()
    except OSError:
        cached = []
    if commit and len(cached) == 2 and cached[0] == commit:
        return commit, cached[1]
    if commit is None and not any((git.git_dir / n).exists() for n in ("packed-refs", "reftable")):
        return None  # no ref file, none packed: unborn, as a new store is (one git call less)
    out = git.run("rev-parse", "-q", "HEAD", "HEAD^{tree}", check=False).decode().split()
    if len(out) != 2 or not all(len(name) == 40 for name in out):
        return None  # unborn: no snapshot yet
    remember_head(git, out[0], out[1])
    return out[0], out[1]


def remember_head(git: ShadowGit, commit: str, tree: str) -> None:
    (git.git_dir / HEAD_CACHE).write_text(f"{commit} {tree}\n")


def _ref_file_commit(git_dir: Path) -> str | None:
    try:
        head = (git_dir / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head or None
        return (git_dir / head[5:]).read_text().strip() or None
    except OSError:
        return None  # unborn, or the ref is packed: ask git


def _nul_joined(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)
