"""The working tree's changes as /review shows them to the model: git's diff against HEAD and
the files git does not track yet, read without running any program the repository's config or
attributes name (the gate's overrides: no external diff, no textconv, no filters)."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.core.outside.git import UnsafeRepository, neutral_env
from agent_cli.core.outside.git_cli import run_git


def working_changes(workspace: Path) -> tuple[str, list[str]]:
    """(the diff of tracked files against HEAD, the untracked files); UsageError outside git."""
    try:
        env = neutral_env(workspace)
        return _changes(workspace, env)
    except UnsafeRepository as e:
        raise UsageError(f"/review: {e}") from e
    except FileNotFoundError as e:
        raise UsageError("/review: git is not installed; nothing to diff.") from e


def _changes(workspace: Path, env: dict[str, str]) -> tuple[str, list[str]]:
    inside = run_git(workspace, "rev-parse", "--is-inside-work-tree", env=env)
    if inside.returncode != 0:
        raise UsageError("/review: this workspace is not a git repository; nothing to diff.")
    base = ["diff", "--no-color", "--no-ext-diff", "--no-textconv"]
    has_head = run_git(workspace, "rev-parse", "--verify", "-q", "HEAD", env=env).returncode == 0
    diff = run_git(workspace, *base, "HEAD" if has_head else "--cached", env=env)
    others = run_git(workspace, "ls-files", "--others", "--exclude-standard", "-z", env=env)
    untracked = [p for p in others.stdout.decode("utf-8", "replace").split("\0") if p]
    return diff.stdout.decode("utf-8", "replace"), untracked
