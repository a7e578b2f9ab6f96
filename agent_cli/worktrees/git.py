"""The git CLI, run in one repository; a failure becomes a UsageError naming git's message.

Every call runs without the variables that point git at another repository (GIT_DIR,
GIT_WORK_TREE ... set by a hook or a parent tool would make a worktree in the wrong one) and
with `-c` options that keep a repository's config from running programs or reshaping output:
no hooks, no fsmonitor, no colour, the usual a/ b/ prefixes (`git apply` needs them)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from agent_cli.core.errors import UsageError

SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.quotePath=false",
    "color.ui=never",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "advice.detachedHead=false",
)
GIT = ("git", *(part for option in SAFE_CONFIG for part in ("-c", option)))
REDIRECTING = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CEILING_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_EXTERNAL_DIFF",
)


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in REDIRECTING}
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0")
    return env


def run_git(
    cwd: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            [*GIT, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            timeout=120,
            env=env or git_env(),
        )
    except FileNotFoundError as e:
        raise UsageError("git is not installed: worktrees need it.") from e


def git(cwd: Path, *args: str, stdin: bytes | None = None, check: bool = True) -> str:
    done = run_git(cwd, *args, stdin=stdin)
    if check and done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise UsageError(f"git {args[0]}: {message}")
    return done.stdout.decode(errors="replace")


def repo_root(path: Path) -> Path:
    """The top of the git checkout holding `path`; exit 2 (UsageError) outside one."""
    done = run_git(path, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise UsageError(f"{path}: not inside a git repository (--worktree needs one).")
    return Path(done.stdout.decode().strip()).resolve()
