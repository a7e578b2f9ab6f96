"""`agent rewind` and the REPL's /undo and /rewind: code back to a checkpoint (after a
checkpoint of the present, so the rewind itself can be undone), conversation back by a fork."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.features import CheckpointSettings
from agent_cli.ext.checkpoints.conversation import fork_session
from agent_cli.ext.checkpoints.records import Checkpoint
from agent_cli.ext.checkpoints.restore import RestoredFiles, restore_tree
from agent_cli.ext.checkpoints.store import CheckpointStore
from agent_cli.ext.checkpoints.turn import transcript_size
from agent_cli.session.state import new_session_id as new_id


@dataclass
class Rewind:
    before: Checkpoint  # the present, saved first: `agent rewind <before.id>` undoes the rewind
    restored: RestoredFiles | None = None  # None when the code was not rewound
    new_session: str | None = None  # the forked session, when the conversation was rewound

    def skipped(self, target: Checkpoint) -> list[str]:
        """Files neither snapshot holds (too large, nested repos): never touched, named."""
        paths = {s.path for s in target.skipped} | {s.path for s in self.before.skipped}
        return sorted(paths)

    def report(self, target: Checkpoint) -> list[str]:
        """What a rewind did, for the CLI and the REPL alike."""
        lines = [
            f"checkpoint {self.before.id} saved first (undo this rewind: "
            f"agent rewind {self.before.id} --code)"
        ]
        if self.restored is not None:
            done = self.restored
            lines.append(
                f"code: back to checkpoint {target.id}: {len(done.written)} restored, "
                f"{len(done.removed)} removed"
            )
            lines += [f"  restored {p}" for p in done.written]
            lines += [f"  removed  {p}" for p in done.removed]
            lines += [f"  left alone {p}" for p in done.left_alone]
            lines += [f"  skipped (not stored, untouched): {p}" for p in self.skipped(target)]
        if self.new_session is not None:
            lines.append(
                f"conversation: new session {self.new_session} (the history before turn "
                f"{target.turn}); session {target.session_id} is unchanged"
            )
            lines.append(f"resume it: agent chat --resume {self.new_session}")
        return lines


def open_store(
    paths: Paths, workspace: Path, settings: CheckpointSettings
) -> CheckpointStore | None:
    """The workspace's store; None when checkpoints are off or git is not installed."""
    if not settings.enabled or shutil.which("git") is None:
        return None
    return CheckpointStore(paths, workspace, settings)


def rewind(
    store: CheckpointStore,
    target: Checkpoint,
    *,
    code: bool,
    conversation: bool,
    session_id: str,
    new_session_id: str | None = None,
) -> Rewind:
    """`session_id` is the session doing the rewind (its transcript is whole at this point);
    a rewound conversation continues as `new_session_id` (a fresh id by default)."""
    paths = store.paths
    with store.locked():
        size = transcript_size(paths.transcript(session_id))
        before = store.take_locked(session_id, f"rewind to {target.id}", size, kind="rewind")
        result = Rewind(before)
        if code:
            result.restored = restore_tree(store.git, before.tree, target.tree)
            store.reset_to(target)
    if conversation:
        result.new_session = new_session_id or new_id()
        fork_session(paths, target, result.new_session)
    return result
