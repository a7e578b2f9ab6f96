"""The checkpoint store of one workspace: `<state>/.agent/checkpoints/<workspace key>/` holds the
shadow git directory (`git/`, with its own index) and `index.jsonl` (what each checkpoint was).

A separate git directory rather than a content-addressed store of our own: git's index keeps the
stat data of every file, so finding what changed costs one `git status`, objects are
deduplicated and compressed, and diffs come for free; the user's repository is never involved.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.core.files.paths import STATE_FOLDERS, Paths, ensure_state_folder
from agent_cli.core.settings.features import CheckpointSettings
from agent_cli.ext.checkpoints.git import ShadowGit
from agent_cli.ext.checkpoints.planted import check_store
from agent_cli.ext.checkpoints.records import (
    Checkpoint,
    TurnEndRecord,
    append_entry,
    first_line,
    new_checkpoint_id,
    read_entries,
)
from agent_cli.ext.checkpoints.snapshot import (
    WorkspaceSnapshot,
    consolidate,
    remember_head,
    take_snapshot,
)

MAX_FORK_DEPTH = 100  # a rewind of a rewind of ...: bounded, so a cycle cannot hang a listing


def store_dir(paths: Paths, workspace: Path) -> Path:
    key = hashlib.sha256(str(workspace).encode()).hexdigest()[:12]
    return paths.checkpoints / key


def excludes(paths: Paths, workspace: Path) -> list[str]:
    """The agent's own folders, as gitignore lines anchored at the workspace root."""
    lines = ["/.agent/"]
    try:
        inside = paths.state_dir.relative_to(workspace)
    except ValueError:
        return lines  # the state directory is elsewhere: nothing of it is in the workspace
    prefix = "" if str(inside) == "." else f"{inside.as_posix()}/"
    lines += [f"/{prefix}{name}/" for name in STATE_FOLDERS]
    return lines


@dataclass
class Changed:
    status: str  # A added, M modified, D deleted, T type changed
    path: str


class CheckpointStore:
    def __init__(self, paths: Paths, workspace: Path, settings: CheckpointSettings) -> None:
        self.workspace, self.settings = workspace, settings
        self.dir = store_dir(paths, workspace)
        self.git = ShadowGit(self.dir / "git", workspace, settings.git_timeout_s)
        self.index = self.dir / "index.jsonl"
        self._excludes = excludes(paths, workspace)
        self.paths = paths

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One writer at a time (a chat and a run may share the workspace). LinkedStore
        before anything is written when the store would be reached through a link."""
        check_store(self.paths.state_dir, self.dir)
        ensure_state_folder(self.paths.checkpoints)
        self.dir.mkdir(parents=True, exist_ok=True)
        with (self.dir / "lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                self.git.init(self._excludes)
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def snapshot(self, ref: str, message: str) -> WorkspaceSnapshot:
        """Call under `locked()`."""
        return take_snapshot(self.git, self.settings.max_file_bytes, message, ref)

    def take(
        self, session_id: str, prompt: str, transcript_bytes: int, kind: str = "turn"
    ) -> Checkpoint:
        with self.locked():
            return self.take_locked(session_id, prompt, transcript_bytes, kind)

    def take_locked(
        self, session_id: str, prompt: str, transcript_bytes: int, kind: str = "turn"
    ) -> Checkpoint:
        cp_id = new_checkpoint_id()
        consolidate(self.git)
        snap = self.snapshot(f"refs/checkpoints/{cp_id}", f"checkpoint {cp_id}")
        checkpoint = Checkpoint(
            id=cp_id,
            session_id=session_id,
            turn=1 + len(self.session_checkpoints(session_id)),
            kind="rewind" if kind == "rewind" else "turn",
            prompt=first_line(prompt),
            commit=snap.commit,
            tree=snap.tree,
            transcript_bytes=transcript_bytes,
            skipped=snap.skipped,
        )
        append_entry(self.index, checkpoint)
        return checkpoint

    def reset_to(self, checkpoint: Checkpoint) -> None:
        """After a code rewind (under `locked()`): the store's index and HEAD are the
        checkpoint's, refreshed so the next snapshot hashes only what changes from here."""
        self.git.run("read-tree", checkpoint.tree)
        self.git.run("update-index", "-q", "--refresh", check=False)  # 1 if some differ
        self.git.run("update-ref", "HEAD", checkpoint.commit)
        remember_head(self.git, checkpoint.commit, checkpoint.tree)

    def session_checkpoints(self, session_id: str) -> list[Checkpoint]:
        """The session's turn checkpoints, oldest first, with those of the session it was
        forked from (by a rewind) that came before the fork point."""
        every = self.checkpoints()
        chain: list[Checkpoint] = []
        for _ in range(MAX_FORK_DEPTH):
            own = [c for c in every if c.session_id == session_id and c.kind == "turn"]
            chain = own + chain
            origin = forked_from(self.paths, session_id)
            if origin is None:
                break
            session_id, fork_point = origin
            ids = [c.id for c in every]
            every = every[: ids.index(fork_point)] if fork_point in ids else []
        return chain

    def end_turn(self, checkpoint: Checkpoint) -> TurnEndRecord:
        with self.locked():
            ref = f"refs/checkpoints/{checkpoint.id}-end"
            snap = self.snapshot(ref, f"end of turn {checkpoint.id}")
            end = TurnEndRecord(id=checkpoint.id, commit=snap.commit, tree=snap.tree)
            append_entry(self.index, end)
        return end

    def now(self) -> WorkspaceSnapshot:
        """The workspace as it is, without a checkpoint record (for /diff and listings)."""
        with self.locked():
            snap = self.snapshot("refs/snapshots/latest", "snapshot")
            if snap.changed:  # kept under its own name: `latest` moves on
                self.git.run("update-ref", f"refs/snapshots/{snap.commit}", snap.commit)
            return snap

    def checkpoints(self) -> list[Checkpoint]:
        return [e for e in read_entries(self.index) if isinstance(e, Checkpoint)]

    def ends(self) -> dict[str, TurnEndRecord]:
        return {e.id: e for e in read_entries(self.index) if isinstance(e, TurnEndRecord)}

    def find(self, prefix: str) -> Checkpoint:
        matches = [c for c in self.checkpoints() if c.id.startswith(prefix)] if prefix else []
        if not matches:
            raise UsageError(f"No checkpoint matches '{prefix}'. List them: agent checkpoints")
        if len({c.id for c in matches}) > 1:
            names = ", ".join(c.id for c in matches[:5])
            raise UsageError(f"'{prefix}' matches several checkpoints ({names}); give more.")
        return matches[0]

    def after_tree(self, checkpoint: Checkpoint) -> str | None:
        """The tree its turn left: its end, else the next checkpoint; None if neither exists."""
        end = self.ends().get(checkpoint.id)
        if end is not None:
            return end.tree
        later = self.checkpoints()
        ids = [c.id for c in later]
        position = ids.index(checkpoint.id) if checkpoint.id in ids else len(ids)
        return later[position + 1].tree if position + 1 < len(later) else None

    def changed(self, old_tree: str, new_tree: str) -> list[Changed]:
        if old_tree == new_tree:
            return []
        out = self.git.run(
            "diff-tree", "-r", "-z", "--name-status", "--no-renames", old_tree, new_tree
        )
        parts = [os.fsdecode(p) for p in out.split(b"\0") if p]
        return [Changed(parts[i][0], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]

    def diff(self, old_tree: str, new_tree: str, paths: list[str] | None = None) -> str:
        out = self.git.run(
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            old_tree,
            new_tree,
            "--",
            *(paths or []),
        )
        return out.decode(errors="replace")


def forked_from(paths: Paths, session_id: str) -> tuple[str, str] | None:
    """(session, checkpoint) a session was forked from by a rewind; None for an original."""
    try:
        with paths.transcript(session_id).open("rb") as f:
            first = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    origin = first.get("forked_from") if isinstance(first, dict) else None
    if not isinstance(origin, str) or "@" not in origin:
        return None
    session, _, checkpoint = origin.partition("@")
    return session, checkpoint
