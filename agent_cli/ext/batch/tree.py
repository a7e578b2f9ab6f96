"""A task's own tree: a worktree of a local repository, or a clone of a URL, at the task's
ref. The user's checkout is never touched."""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.ext.worktrees import worktree
from agent_cli.ext.worktrees.git import git, repo_root

# what git itself would clone: a scheme, or scp-like user@host:path
URL = re.compile(r"^([a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)


def is_url(repo: str) -> bool:
    return bool(URL.match(repo))


def tree_name(batch_key: str, task_id: str) -> str:
    name = f"batch-{batch_key}-{task_id}"
    if len(name) <= 64:
        return name
    return f"batch-{batch_key}-{hashlib.sha256(task_id.encode()).hexdigest()[:16]}"


@dataclass
class TaskTree:
    """Where a task runs, and how to diff and remove it."""

    path: Path
    base: str
    root: Path | None  # the repository a worktree belongs to; None for a clone
    record: worktree.WorktreeRecord | None

    def diff(self) -> str:
        if self.record is not None:
            return worktree.diff(self.record)
        git(self.path, "add", "--intent-to-add", "--all")
        return git(self.path, "diff", "--binary", self.base)

    def remove(self) -> None:
        if self.record is not None and self.root is not None:
            worktree.remove(self.root, self.record)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


def _clear_leftovers(root: Path, name: str) -> None:
    """What a killed earlier run of this batch left of the task's tree: its record, folder or
    branch (a kill between `git worktree add` and the record leaves no record)."""
    path = worktree.folder(root) / name
    left = worktree.WorktreeRecord(
        name=name, path=str(path), branch=f"agent/{name}", base="", base_ref=""
    )
    worktree.remove(root, left)
    shutil.rmtree(path, ignore_errors=True)


def _worktree(repo: Path, ref: str, name: str) -> TaskTree:
    root = repo_root(repo)
    _clear_leftovers(root, name)  # worktrees/ serialises each git step on one repository
    record = worktree.create(root, name, ref)
    return TaskTree(Path(record.path), record.base, root, record)


def _clone(url: str, ref: str, into: Path) -> TaskTree:
    shutil.rmtree(into, ignore_errors=True)
    into.parent.mkdir(parents=True, exist_ok=True)
    git(into.parent, "clone", "--quiet", "--no-checkout", "--", url, str(into))
    commit = git(into, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if not commit.strip():
        raise UsageError(f"ref {ref}: not a commit of {url}")
    git(into, "checkout", "--quiet", "--detach", commit.strip())
    return TaskTree(into, commit.strip(), None, None)


def prepare(repo: str, ref: str | None, name: str, clones: Path) -> TaskTree:
    """The task's tree at `ref` (default HEAD); a UsageError says why it cannot be made."""
    if is_url(repo):
        return _clone(repo, ref or "HEAD", clones / name)
    path = Path(repo).expanduser()
    if not path.is_dir():
        raise UsageError(f"repo {repo}: no such folder")
    return _worktree(path, ref or "HEAD", name)
