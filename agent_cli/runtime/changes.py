"""The working tree's changes as /review shows them to the model: git's diff against HEAD and
the files git does not track yet, read without running any program the repository's config or
attributes name (git_guard's overrides: no external diff, no textconv, no filters)."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.tools.shell.git_guard import ALWAYS, DRIVER_KEYS, config_env
from agent_cli.worktrees.git import git_env, run_git


def _neutral_env(workspace: Path) -> dict[str, str]:
    settings = dict(ALWAYS)
    env = {**git_env(), **config_env(settings)}
    listed = run_git(workspace, "config", "--list", "--name-only", "-z", env=env)
    for key in listed.stdout.decode("utf-8", "replace").split("\0"):
        for pattern, value in DRIVER_KEYS:
            if key and pattern.match(key):
                settings[key] = value
    return {**git_env(), **config_env(settings)}


def working_changes(workspace: Path) -> tuple[str, list[str]]:
    """(the diff of tracked files against HEAD, the untracked files); UsageError outside git."""
    env = _neutral_env(workspace)
    inside = run_git(workspace, "rev-parse", "--is-inside-work-tree", env=env)
    if inside.returncode != 0:
        raise UsageError("/review: this workspace is not a git repository; nothing to diff.")
    base = ["diff", "--no-color", "--no-ext-diff", "--no-textconv"]
    has_head = run_git(workspace, "rev-parse", "--verify", "-q", "HEAD", env=env).returncode == 0
    diff = run_git(workspace, *base, "HEAD" if has_head else "--cached", env=env)
    others = run_git(workspace, "ls-files", "--others", "--exclude-standard", "-z", env=env)
    untracked = [p for p in others.stdout.decode("utf-8", "replace").split("\0") if p]
    return diff.stdout.decode("utf-8", "replace"), untracked
