"""The checkout's working tree as a commit, without touching it: its index is copied to a
temporary one, every file (untracked ones too, ignored ones not) added there, and the tree
committed on top of HEAD. A subagent's worktree starts from it, so it sees the parent's
uncommitted edits and its diff applies to the checkout as it stands."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.ext.worktrees.git import git, git_env, run_git


def working_tree_commit(checkout: Path) -> str:
    head = run_git(checkout, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    parent = head.stdout.decode().strip() if head.returncode == 0 else ""
    index = Path(git(checkout, "rev-parse", "--git-path", "index").strip())
    index = index if index.is_absolute() else checkout / index
    with tempfile.TemporaryDirectory(prefix="agent-snapshot-") as scratch:
        env = {**git_env(checkout), "GIT_INDEX_FILE": str(Path(scratch) / "index")}
        if index.is_file():  # its stat data: only what changed is hashed again
            shutil.copyfile(index, env["GIT_INDEX_FILE"])
        _ok(run_git(checkout, "add", "--all", "--", ".", env=env).returncode, "add")
        tree = run_git(checkout, "write-tree", env=env)
        _ok(tree.returncode, "write-tree")
    args = ["commit-tree", tree.stdout.decode().strip(), "-m", "agent: the working tree"]
    identity = ("-c", "user.name=agent", "-c", "user.email=agent@localhost")
    return git(checkout, *identity, *args, *(["-p", parent] if parent else [])).strip()


def _ok(code: int, step: str) -> None:
    if code != 0:
        raise UsageError(f"git {step}: the working tree could not be snapshotted")
