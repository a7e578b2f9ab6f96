"""The git CLI, run in one repository; a failure becomes a UsageError naming git's message.

Every call goes through the gate (agent_cli/core/outside/git.py and git_cli.py): no variables
pointing git at another repository, and every program the repository's config names (hooks,
fsmonitor, filters, diff and merge drivers) made harmless, so a `git worktree add` or a task's
`git diff` runs none of what a confined command may have planted. Our own `-c` options
(git_cli.py) keep output as we parse it: no colour, the usual a/ b/ prefixes (`git apply`
needs them). A worktree the agent made is reached through the git directory it recorded,
never through the `.git` file in it, which a command run there could have rewritten."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.core.outside import git_cli, spawn
from agent_cli.core.outside.git import UnsafeRepository, neutral_env


def git_env(repo: Path, gitdir: Path | None = None) -> dict[str, str]:
    """The gate's environment for git in `repo`; with `gitdir` (a worktree's own, as recorded
    when it was made) git is pointed at it and at `repo` as the work tree."""
    try:
        return neutral_env(repo, gitdir=gitdir)
    except UnsafeRepository as e:
        raise UsageError(f"git in {repo}: {e}") from e


def run_git(
    cwd: Path,
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    gitdir: Path | None = None,
) -> spawn.CompletedProcess[bytes]:
    try:
        return git_cli.run_git(cwd, *args, stdin=stdin, env=env or git_env(cwd, gitdir))
    except FileNotFoundError as e:
        raise UsageError("git is not installed: worktrees need it.") from e


def git(
    cwd: Path,
    *args: str,
    stdin: bytes | None = None,
    check: bool = True,
    gitdir: Path | None = None,
) -> str:
    done = run_git(cwd, *args, stdin=stdin, gitdir=gitdir)
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
