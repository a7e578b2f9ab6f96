"""The git CLI, run in one repository; a failure becomes a UsageError naming git's message."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_cli.core.errors import UsageError


def git(cwd: Path, *args: str, stdin: bytes | None = None, check: bool = True) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, input=stdin, capture_output=True, timeout=120
        )
    except FileNotFoundError as e:
        raise UsageError("git is not installed: worktrees need it.") from e
    if check and done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise UsageError(f"git {args[0]}: {message}")
    return done.stdout.decode(errors="replace")


def repo_root(path: Path) -> Path:
    """The top of the git checkout holding `path`; exit 2 (UsageError) outside one."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=path, capture_output=True, timeout=60
        )
    except FileNotFoundError as e:
        raise UsageError("git is not installed: worktrees need it.") from e
    if done.returncode != 0:
        raise UsageError(f"{path}: not inside a git repository (--worktree needs one).")
    return Path(done.stdout.decode().strip()).resolve()
