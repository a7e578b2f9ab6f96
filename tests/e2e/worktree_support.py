"""A real git repository for the worktree tests, and what its user would check."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.helpers import run_agent


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    sh(root, "init", "-q", "-b", "main")
    sh(root, "config", "user.email", "t@example.com")
    sh(root, "config", "user.name", "t")
    (root / "a.txt").write_text("one\ntwo\nthree\n")
    sh(root, "add", "a.txt")
    sh(root, "commit", "-qm", "first")
    return root.resolve()


@dataclass
class Seen:
    """What the user sees of their checkout: HEAD, branch, what is staged, status, files.

    The index is compared by its entries (mode, object, stage, path), not its bytes: git
    rewrites the stat cache in it whenever it finds a racily clean entry, `git status` included."""

    head: str
    branch: str
    index: str
    status: str
    files: dict[str, bytes]

    @classmethod
    def of(cls, repo: Path) -> Seen:
        files = {str(p.relative_to(repo)): p.read_bytes() for p in repo.glob("*") if p.is_file()}
        return cls(
            sh(repo, "rev-parse", "HEAD"),
            sh(repo, "branch", "--show-current"),
            sh(repo, "ls-files", "--stage"),
            sh(repo, "status", "--porcelain", "--untracked-files=all"),
            files,
        )


def worktrees(env: dict[str, str], repo: Path) -> list[dict[str, Any]]:
    proc = run_agent(env, repo, "worktrees", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, Any]] = json.loads(proc.stdout)
    return rows


def agent_branches(repo: Path) -> list[str]:
    return [b.strip(" *+") for b in sh(repo, "branch", "--list", "agent/*").splitlines()]
