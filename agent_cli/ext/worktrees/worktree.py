"""One worktree per task: `.agent/worktrees/<name>` on branch `agent/<name>`, from a base
resolved to a commit once and recorded in `.agent/worktrees/<name>.json`. The user's checkout,
index and branch are never touched: `git worktree add` writes only the new folder and refs.

Creating and removing are serialised by `.agent/worktrees/.lock` (two sessions starting at once
would race on git's own lock files); a session working in a worktree holds `<name>.lock`, so a
second one cannot enter it and `remove` refuses it while it runs."""

from __future__ import annotations

import fcntl
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from pydantic import BaseModel, Field

from agent_cli.core.errors import AgentError, UsageError
from agent_cli.core.files.paths import ensure_state_folder
from agent_cli.ext.worktrees.git import git, run_git
from agent_cli.ext.worktrees.home import checked_folder

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
DIFF = ("diff", "--binary", "--full-index", "--no-ext-diff", "--no-textconv", "--no-color")


class WorktreeRecord(BaseModel):
    name: str = Field(description="The worktree's name: its folder and branch suffix.")
    path: str = Field(description="The worktree's folder, absolute.")
    branch: str = Field(description="The branch it is on: agent/<name>.")
    base: str = Field(description="The commit it started from, resolved once at creation.")
    base_ref: str = Field(description="The REF the user gave for the base.")
    created: str = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"),
        description="When it was made (UTC).",
    )
    gitdir: str = Field(
        default="",
        description="Its git directory as git made it (absolute); the agent's own git in the "
        "worktree goes there, never where the worktree's `.git` file (writable there) points.",
    )


def folder(root: Path) -> Path:
    return root / ".agent" / "worktrees"


def _record_path(root: Path, name: str) -> Path:
    return folder(root) / f"{name}.json"


@contextmanager
def _serialised(root: Path) -> Iterator[None]:
    checked_folder(root)
    ensure_state_folder(root / ".agent")
    folder(root).mkdir(parents=True, exist_ok=True)
    ignore = folder(root) / ".gitignore"  # `git status` of the checkout never shows them
    if not ignore.exists():
        ignore.write_text("*\n")
    with (folder(root) / ".lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def check_name(name: str) -> str:
    if not NAME.match(name) or name.endswith((".lock", ".json")):
        raise UsageError(
            f"worktree name {name!r}: letters, digits, '.', '_' or '-' (at most 64, "
            "not ending in .lock or .json)"
        )
    return name


def resolve_base(root: Path, base: str) -> str:
    """`base` as a commit id, now: a branch moved later does not move the worktree."""
    if base.startswith("-"):
        raise UsageError(f"--base {base}: not a commit in {root}")
    done = run_git(
        root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{base}^{{commit}}"
    )
    commit = done.stdout.decode().strip()
    if done.returncode != 0 or not commit:
        raise UsageError(f"--base {base}: not a commit in {root}")
    return commit


def create(root: Path, name: str, base: str = "HEAD") -> WorktreeRecord:
    check_name(name)
    commit = resolve_base(root, base)
    with _serialised(root):
        if _record_path(root, name).exists():
            raise UsageError(f"worktree {name} exists already (agent worktrees remove {name})")
        path = folder(root) / name
        if path.exists():
            raise UsageError(f"{path} exists already and is not a worktree of ours")
        branch = f"agent/{name}"
        if run_git(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}").stdout:
            raise UsageError(f"branch {branch} exists already: pick another worktree name")
        git(root, "worktree", "add", "--quiet", "-b", branch, str(path), commit)
        record = WorktreeRecord(
            name=name, path=str(path), branch=branch, base=commit, base_ref=base,
            gitdir=_own_gitdir(root, path),
        )  # fmt: skip
        _record_path(root, name).write_text(record.model_dump_json(indent=1) + "\n")
    return record


def _own_gitdir(root: Path, path: Path) -> str:
    """The git directory `git worktree add` just made for `path`: the one under the
    repository's `worktrees/` whose `gitdir` file names `path/.git` ("" if none does)."""
    common = Path(git(root, "rev-parse", "--git-common-dir").strip())
    common = common if common.is_absolute() else root / common
    for admin in (common / "worktrees").iterdir():
        named = admin / "gitdir"
        if named.is_file() and Path(named.read_text().strip()).parent == path:
            return str(admin.resolve())
    return ""


def load(root: Path, name: str) -> WorktreeRecord:
    path = _record_path(root, name)
    if not NAME.match(name) or not path.is_file():
        raise UsageError(f"no worktree named {name} (agent worktrees list)")
    return WorktreeRecord.model_validate_json(path.read_text())


def exists(root: Path, name: str) -> bool:
    return _record_path(root, name).is_file()


def records(root: Path) -> list[WorktreeRecord]:
    where = folder(root)
    return [load(root, p.stem) for p in sorted(where.glob("*.json"))] if where.is_dir() else []


def hold(root: Path, name: str) -> IO[str]:
    """The worktree's session lock, held until the returned file is closed (or the process
    ends); a second holder is refused."""
    handle = (folder(root) / f"{name}.lock").open("a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise UsageError(f"worktree {name} is in use by another session") from None
    return handle


def in_use(root: Path, name: str) -> bool:
    lock = folder(root) / f"{name}.lock"
    if not lock.exists():
        return False
    try:
        hold(root, name).close()
    except UsageError:
        return True
    return False


def diff(record: WorktreeRecord) -> str:
    """Everything the worktree changed since its base: commits, the index, the files, and new
    files (added with intent-to-add so they show)."""
    path = Path(record.path)
    if not path.is_dir():
        raise AgentError(f"worktree {record.name}: its folder {path} is gone")
    gitdir = Path(record.gitdir) if record.gitdir else None
    git(path, "add", "--intent-to-add", "--all", gitdir=gitdir)
    return git(path, *DIFF, "--src-prefix=a/", "--dst-prefix=b/", record.base, "--", gitdir=gitdir)


def conflicts(root: Path, patch: str) -> list[str]:
    """The files `patch` would not apply to cleanly in the checkout at `root` ([] = clean)."""
    if not patch:
        return []
    run = run_git(root, "apply", "--check", "-", stdin=patch.encode())
    if run.returncode == 0:
        return []
    named = re.findall(r"error: (?:patch failed: )?([^:\n]+)", run.stderr.decode(errors="replace"))
    return sorted(set(named)) or ["(patch does not apply)"]


def apply(root: Path, patch: str) -> None:
    git(root, "apply", "-", stdin=patch.encode())


def remove(root: Path, record: WorktreeRecord) -> None:
    with _serialised(root):
        git(root, "worktree", "remove", "--force", "--force", record.path, check=False)
        git(root, "worktree", "prune")
        git(root, "branch", "-D", record.branch, check=False)
        _record_path(root, record.name).unlink(missing_ok=True)
        (folder(root) / f"{record.name}.lock").unlink(missing_ok=True)


def changed(record: WorktreeRecord) -> bool:
    return bool(diff(record).strip())


def files_of(patch: str) -> list[str]:
    """The files a patch touches, by their new name (the old one for a deletion)."""
    names = re.findall(r"^diff --git a/(.+?) b/(.+)$", patch, flags=re.MULTILINE)
    return list(dict.fromkeys(new for _, new in names))
