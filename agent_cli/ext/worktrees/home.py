"""Where a repository's agent worktrees live: `.agent/worktrees/` of the user's checkout.

Run from inside an agent worktree, the home is still the checkout that worktree belongs to, so
a new worktree is never nested in (or based on) another agent's branch. A `.agent` or
`.agent/worktrees` that is a symlink (a repository can commit one) is refused: worktrees would
land wherever it points."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.ext.worktrees.git import repo_root


@dataclass(frozen=True)
class Home:
    root: Path  # the user's checkout: its .agent/worktrees holds the worktrees
    checkout: Path  # the top of the checkout the command runs in (root, or a worktree)
    subdir: Path  # the workspace inside that checkout ('.' at its top)

    @property
    def folder(self) -> Path:
        return self.root / ".agent" / "worktrees"

    @property
    def inside_worktree(self) -> bool:
        return self.checkout != self.root


def owner_of(top: Path) -> Path | None:
    """The checkout whose agent worktree `top` is, or None."""
    parent = top.parent
    ours = parent.name == "worktrees" and parent.parent.name == ".agent"
    return parent.parent.parent if ours and (parent / f"{top.name}.json").is_file() else None


def checked_folder(root: Path) -> None:
    for path in (root / ".agent", root / ".agent" / "worktrees"):
        if path.is_symlink():
            raise UsageError(f"{path} is a symlink: worktrees are only made inside the checkout")
        if path.exists() and not path.is_dir():
            raise UsageError(f"{path} is not a folder: no place for worktrees")


def home(workspace: Path) -> Home:
    """The home of the worktrees for `workspace`; exit 2 outside a git repository."""
    workspace = workspace.resolve()
    top = repo_root(workspace)
    root = owner_of(top) or top
    checked_folder(root)
    try:
        subdir = workspace.relative_to(top)
    except ValueError:
        subdir = Path()
    return Home(root=root, checkout=top, subdir=subdir)
