"""The workspace boundary of the file tools.

In every permission mode, file tools write only inside the workspace (paths resolved, symlinks
followed) and never into the state directory's internal folders. Reads outside are a permission
question (see `agent_cli.policy.permissions`), except the state files the agent points the model at.
Some workspace files are protected: a write to them is asked every time (see `protected`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from agent_cli.core.tool_contract import ToolContext

# written only through their own tools (transcripts, notes, logs)
INTERNAL_FOLDERS = (".transcripts", "notes", "logs")
# the agent's own files the model may read without a question (saved outputs, notes)
READABLE_STATE = (".transcripts/tool-results", "notes")
# workspace-root files that would make the workspace itself a (bare) git repository
GIT_DIR_FILES = (("HEAD",), ("config",))


class PathRefused(Exception):
    """A path a file tool must not write; the message tells the model why."""


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def inside(path: Path, root: Path) -> bool:
    """`path == root or path.is_relative_to(root)`, read off the text of an absolute root:
    asked of every call's path three times, where pathlib's took a dozen calls. A root of
    exactly two slashes is another root to POSIX (and to pathlib)."""
    held, under = str(path), str(root)
    if held == under:
        return True
    if not under.startswith(os.sep):
        return path.is_relative_to(root)
    prefix = under if under.endswith(os.sep) else under + os.sep
    return held.startswith(prefix) and (held[:2] == "//") == (under[:2] == "//")


def workspace_root(ctx: ToolContext) -> Path:
    return ctx.workspace_root()


def internal_folders(ctx: ToolContext) -> list[Path]:
    state = ctx.paths.state_dir.resolve()
    return [state / name for name in INTERNAL_FOLDERS]


def root_of(ctx: ToolContext, path: Path) -> Path | None:
    """The workspace, or the directory added with /add-dir, that holds `path` (None: none)."""
    return next((r for r in (workspace_root(ctx), *ctx.extra_roots) if inside(path, r)), None)


def writable_path(ctx: ToolContext, raw: str) -> Path:
    """The resolved path `raw` names, or PathRefused when a file tool may not write it."""
    path = ctx.resolve(raw)
    root = root_of(ctx, path)
    if root is None or path == root:
        added = "".join(f", or {r}" for r in ctx.extra_roots)
        raise PathRefused(
            f"Refused: {raw} resolves to {path}, outside the workspace {workspace_root(ctx)}"
            f"{added}. File tools write only inside the workspace (and directories the user "
            "added), in every permission mode."
        )
    for folder in internal_folders(ctx):
        if inside(path, folder):
            raise PathRefused(
                f"Refused: {raw} is inside {folder}, the agent's own state (transcripts, notes, "
                "logs), which file tools never write."
            )
    return path


def protected(ctx: ToolContext, path: Path) -> str | None:
    """What a write to `path` would change when it must be asked every time, else None: the
    agent's settings decide its permissions, and git runs commands its config and hooks name
    (`core.fsmonitor` on a read-only `git status`), in this repository or a nested one."""
    root = root_of(ctx, path)
    if root is None:
        return None
    if inside(path, root / ".agent"):
        return "the agent's own settings"
    parts = path.relative_to(root).parts
    git_dirs = _git_dirs(root)
    if ".git" in parts or parts in GIT_DIR_FILES or any(inside(path, d) for d in git_dirs):
        return "git's own files, whose config and hooks can make git run commands"
    return None


def _git_dirs(root: Path) -> list[Path]:
    """Where the workspace's `.git` really is: followed when a symlink, or read when a file
    (`gitdir: <path>`)."""
    dot_git = root / ".git"
    try:
        text = dot_git.read_text(errors="replace") if dot_git.is_file() else ""
    except OSError:
        text = ""
    linked = [(root / text[7:].strip()).resolve()] if text.startswith("gitdir:") else []
    return [dot_git.resolve(), *linked]


def readable_without_question(ctx: ToolContext, path: Path) -> bool:
    """Inside the workspace (or an added directory), or one of the agent's own files it showed
    the model."""
    if root_of(ctx, path) is not None:
        return True
    state = ctx.paths.state_dir.resolve()
    return any(inside(path, state / sub) for sub in READABLE_STATE)


def display_path(ctx: ToolContext, path: Path) -> str:
    """Relative to the workspace when inside it, else absolute."""
    root_path = workspace_root(ctx)
    held, root = str(path), str(root_path)
    if held == root or not inside(path, root_path):
        return held
    return held[len(root) + (not root.endswith(os.sep)) :]


def remember(ctx: ToolContext, path: Path, data: bytes, written: bool = False) -> None:
    """Record what the agent last saw of `path` (edit_file's guard) and what it changed."""
    ctx.file_state[path] = content_hash(data)
    if written:
        ctx.touched.add(path)


def replace_file(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a new file renamed over it: a hard link in the workspace
    to a file outside is replaced, never written through (the file outside keeps its content),
    and a crash leaves the old or the new content, never half. The old mode is kept."""
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        if mode is not None:
            Path(tmp).chmod(mode)
        Path(tmp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise
