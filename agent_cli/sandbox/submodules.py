"""The git repositories of a writable root: its own and, recursively, each submodule its index
records (gitindex.py), whose `.git` holds programs the user's `git status` runs just as the
top one's does. Each gets the same protected names inside its `.git`."""

from __future__ import annotations

import stat
from pathlib import Path

from agent_cli.sandbox.gitindex import gitlinks
from agent_cli.sandbox.lstat import kind

# what git runs a program from, or reads another config from, inside a `.git` folder
GIT_PROTECTED = ("config", "config.worktree", "hooks", "commondir", "modules", "worktrees")
MAX_DEPTH = 4


def _safe(name: str) -> tuple[str, ...] | None:
    """A gitlink's components, or None for one git itself would refuse (`..`, `.git`, ...)."""
    parts = tuple(name.split("/"))
    bad = {"", ".", ".."}
    if name.startswith("/") or any(p in bad or p.lower() == ".git" for p in parts):
        return None
    return parts


def repositories(root: Path, depth: int = 0) -> list[Path]:
    """`root` when it holds a `.git` folder, and its submodules' work trees under it."""
    if kind(root / ".git") != stat.S_IFDIR:
        return []
    found = [root]
    if depth < MAX_DEPTH:
        for name in gitlinks(root) or ():
            parts = _safe(name)
            if parts is not None:
                found += repositories(root.joinpath(*parts), depth + 1) or [root.joinpath(*parts)]
    return found


def protected_in(worktree: Path) -> list[Path]:
    """The paths inside a work tree's `.git` that stay read-only; the `.git` itself when it is
    a file (a linked worktree's or a submodule's `gitdir: ...`)."""
    if kind(worktree / ".git") == stat.S_IFREG:
        return [worktree / ".git"]
    return [worktree / ".git" / name for name in GIT_PROTECTED]
