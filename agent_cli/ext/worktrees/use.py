"""A session in a worktree: entered (made from its base, or an existing one taken up again) and
left (removed when nothing changed, else kept and named with the commands to bring it back).

The session's workspace is the worktree (at the same sub-folder the user started in); its
state (transcripts, checkpoints, logs) stays with the user's checkout, so it outlives the
worktree and `/resume` there lists it. `WorktreeSessionsPort` is the port "worktree_session"
that `--worktree` asks for (agent_cli/cli/worktree_session.py)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from agent_cli.core.errors import UsageError
from agent_cli.ext.worktrees.git import git
from agent_cli.ext.worktrees.home import Home, home
from agent_cli.ext.worktrees.worktree import (
    WorktreeRecord,
    changed,
    check_name,
    create,
    diff,
    exists,
    files_of,
    hold,
    load,
    remove,
    resolve_base,
)


@dataclass
class Entered:
    home: Home
    record: WorktreeRecord
    workspace: Path  # where the session works
    created: bool
    lock: IO[str]
    notes: list[str] = field(default_factory=list)  # what the user should know before it runs

    @property
    def name(self) -> str:
        return self.record.name

    def leave(self) -> list[str]:
        return leave(self)


class WorktreeSessionsPort:
    """The port "worktree_session"."""

    def enter(self, workspace: Path, name: str | None, base: str | None) -> Entered:
        return enter(workspace, name, base)


def generated_name() -> str:
    return f"wt-{secrets.token_hex(3)}"


def enter(workspace: Path, name: str | None = None, base: str | None = None) -> Entered:
    """The worktree `name` (made now from `base`, default HEAD of the user's checkout), held
    for this session. Exit 2 outside a repository, on a bad name or base, or when another
    session holds it."""
    where = home(workspace)
    name = check_name(name or generated_name())
    notes: list[str] = []
    if where.inside_worktree:
        notes.append(f"worktree {name}: made in {where.root}, not inside {where.checkout}")
    created = not exists(where.root, name)
    if created:
        record = create(where.root, name, base or "HEAD")
        if _dirty(where.root):
            notes.append(
                f"worktree {name}: your uncommitted changes are not in it "
                f"(it starts from {record.base[:10]})"
            )
    else:
        record = load(where.root, name)
        if base is not None and resolve_base(where.root, base) != record.base:
            raise UsageError(
                f"--base {base}: worktree {name} exists already with base {record.base[:10]}"
            )
    lock = hold(where.root, name)
    inside = Path(record.path) / where.subdir
    return Entered(
        where, record, inside if inside.is_dir() else Path(record.path), created, lock, notes
    )


def _dirty(root: Path) -> bool:
    status = git(root, "status", "--porcelain", "--untracked-files=no", check=False)
    return bool(status.strip())


def leave(entered: Entered) -> list[str]:
    """Removed if unchanged, else kept: the lines that say which, and how to bring it back."""
    record, root = entered.record, entered.home.root
    try:
        if not changed(record):
            remove(root, record)
            return [f"worktree {record.name}: nothing changed, removed"]
        return kept_lines(record, files_of(diff(record)))
    finally:
        entered.lock.close()


def kept_lines(record: WorktreeRecord, files: list[str]) -> list[str]:
    shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    n = record.name
    return [
        f"worktree {n} kept: {record.path} (branch {record.branch}, base {record.base[:10]}), "
        f"changed: {shown}",
        f"  review:  agent worktrees diff {n}",
        f"  apply:   agent worktrees merge {n}",
        f"  discard: agent worktrees remove {n}",
        f"  go on:   agent chat --worktree {n}",
    ]
