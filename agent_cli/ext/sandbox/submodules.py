"""The git repositories of a writable root: its own and, recursively, each submodule its index
records (gitindex.py), whose `.git` holds programs the user's `git status` runs just as the
top one's does. Each gets the same protected names inside its `.git`."""

# ruff: noqa: PTH118 - plain strings: this runs before every confined command

from __future__ import annotations

import os
import stat

from agent_cli.ext.sandbox.gitindex import gitlinks
from agent_cli.ext.sandbox.lstat import kind

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


def repositories(root: str, depth: int = 0) -> list[str]:
    """`root` when it holds a `.git` folder, and its submodules' work trees under it."""
    if kind(os.path.join(root, ".git")) != stat.S_IFDIR:
        return []
    found = [root]
    if depth < MAX_DEPTH:
        for name in gitlinks(root) or ():
            parts = _safe(name)
            if parts is not None:
                sub = os.path.join(root, *parts)
                found += repositories(sub, depth + 1) or [sub]
    return found


def protected_in(worktree: str) -> list[str]:
    """The paths inside a work tree's `.git` that stay read-only; the `.git` itself when it is
    a file (a linked worktree's or a submodule's `gitdir: ...`)."""
    git = os.path.join(worktree, ".git")
    if kind(git) == stat.S_IFREG:
        return [git]
    return [os.path.join(git, name) for name in GIT_PROTECTED]
