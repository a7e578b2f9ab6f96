"""One worktree per task: `.agent/worktrees/<name>` on branch `agent/<name>`, from a base
resolved to a commit once and recorded in `.agent/worktrees/<name>.json`. The user's checkout,
index and branch are never touched: `git worktree add` writes only the new folder and refs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from pydantic import BaseModel, Field

from agent_cli.core.errors import UsageError
from agent_cli.core.files.paths import ensure_state_folder
from agent_cli.worktrees.git import git

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class WorktreeRecord(BaseModel):
    name: str = Field(description="The worktree's name: its folder and branch suffix.")
    path: str = Field(description="The worktree's folder, absolute.")
    branch: str = Field(description="The branch it is on: agent/<name>.")
    base: str = Field(description="The commit it started from, resolved once at creation.")
    base_ref: str = Field(description="The REF the user gave for the base.")


def folder(root: Path) -> Path:
    return root / ".agent" / "worktrees"


def _record_path(root: Path, name: str) -> Path:
    return folder(root) / f"{name}.json"


def create(root: Path, name: str, base: str = "HEAD") -> WorktreeRecord:
    if not NAME.match(name):
        raise UsageError(f"worktree name {name!r}: letters, digits, '.', '_' or '-' only")
    if _record_path(root, name).exists():
        raise UsageError(f"worktree {name} exists already (agent worktrees remove {name})")
    commit = git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}", check=False)
    if not commit.strip():
        raise UsageError(f"--base {base}: not a commit in {root}")
    ensure_state_folder(root / ".agent")
    path = folder(root) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    git(root, "worktree", "add", "--quiet", "-b", f"agent/{name}", str(path), commit.strip())
    record = WorktreeRecord(
        name=name, path=str(path), branch=f"agent/{name}", base=commit.strip(), base_ref=base
    )
    _record_path(root, name).write_text(record.model_dump_json(indent=1) + "\n")
    return record


def load(root: Path, name: str) -> WorktreeRecord:
    path = _record_path(root, name)
    if not path.is_file():
        raise UsageError(f"no worktree named {name} (agent worktrees list)")
    return WorktreeRecord.model_validate_json(path.read_text())


def records(root: Path) -> list[WorktreeRecord]:
    where = folder(root)
    return [load(root, p.stem) for p in sorted(where.glob("*.json"))] if where.is_dir() else []


def diff(record: WorktreeRecord) -> str:
    """Everything the worktree changed since its base: commits, the index, the files, and new
    files (added with intent-to-add so they show)."""
    path = Path(record.path)
    git(path, "add", "--intent-to-add", "--all")
    return git(path, "diff", "--binary", record.base)


def conflicts(root: Path, patch: str) -> list[str]:
    """The files `patch` would not apply to cleanly in the checkout at `root` ([] = clean)."""
    if not patch:
        return []
    run = subprocess.run(
        ["git", "apply", "--check", "-"], cwd=root, input=patch.encode(), capture_output=True
    )
    if run.returncode == 0:
        return []
    named = re.findall(r"error: (?:patch failed: )?([^:\n]+)", run.stderr.decode(errors="replace"))
    return sorted(set(named)) or ["(patch does not apply)"]


def apply(root: Path, patch: str) -> None:
    git(root, "apply", "-", stdin=patch.encode())


def remove(root: Path, record: WorktreeRecord) -> None:
    git(root, "worktree", "remove", "--force", record.path, check=False)
    git(root, "worktree", "prune")
    git(root, "branch", "-D", record.branch, check=False)
    _record_path(root, record.name).unlink(missing_ok=True)


def changed(record: WorktreeRecord) -> bool:
    return bool(diff(record).strip())
