"""The Runtime's part for going back: the session's checkpoints, what changed since one, and
/undo and /rewind (code, conversation or both: a rewound conversation continues as a new
session, which the runtime switches to). Front ends ask and show; they never open the store."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from agent_cli.ext.checkpoints.conversation import prompt_at
from agent_cli.ext.checkpoints.git import GitError
from agent_cli.ext.checkpoints.rewind import open_store, rewind
from agent_cli.ext.checkpoints.turn import session_files

if TYPE_CHECKING:
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.options import Options
    from agent_cli.core.settings.schema import Settings
    from agent_cli.ext.checkpoints.records import Checkpoint
    from agent_cli.ext.checkpoints.store import CheckpointStore
    from agent_cli.session.state import Session

RewindMode = Literal["code", "conversation", "both"]


class CheckpointsOff(Exception):
    """Checkpoints are off: git is not installed, or checkpoints.enabled is false."""


class Rewinding:
    """Mixed into the Runtime, which provides these."""

    session: Session
    options: Options

    @property
    def paths(self) -> Paths:
        raise NotImplementedError

    @property
    def settings(self) -> Settings:
        raise NotImplementedError

    def switch(self, resume: str | None = None) -> None:
        raise NotImplementedError

    def _store(self) -> CheckpointStore:
        store = open_store(self.paths, self.options.workspace, self.settings.checkpoints)
        if store is None:
            raise CheckpointsOff(CheckpointsOff.__doc__)
        return store

    def checkpoints(self) -> list[Checkpoint]:
        """This session's turns, oldest first. CheckpointsOff when there is no store."""
        return self._store().session_checkpoints(self.session.id)

    def session_files(self) -> int | None:
        """The panel's "files changed" of a resumed session; None without checkpoints."""
        try:
            return session_files(self._store(), self.session.id)
        except (CheckpointsOff, GitError, OSError):
            return None  # a panel figure is not worth an error at start-up

    async def changed_since(self, checkpoint: Checkpoint) -> list[str]:
        """What changed from the checkpoint to the workspace now, a "STATUS path" line each."""
        store = self._store()
        now = await asyncio.to_thread(store.now)
        return [f"{c.status} {c.path}" for c in store.changed(checkpoint.tree, now.tree)]

    async def turn_files(self, turns: list[Checkpoint]) -> dict[str, list[str]]:
        """The files each turn changed, by checkpoint id: up to its end, else to the next
        turn's start, else (a turn still open) to the workspace now."""
        store = self._store()
        out: dict[str, list[str]] = {}
        now: str | None = None
        for checkpoint in turns:
            after = store.after_tree(checkpoint)
            if after is None:
                now = now or (await asyncio.to_thread(store.now)).tree
                after = now
            out[checkpoint.id] = [c.path for c in store.changed(checkpoint.tree, after)]
        return out

    async def diff_since(self, checkpoint: Checkpoint) -> str:
        """A unified diff from the checkpoint to the workspace as it is now."""
        store = self._store()
        now = await asyncio.to_thread(store.now)
        return store.diff(checkpoint.tree, now.tree)

    def prompt_of(self, checkpoint: Checkpoint) -> str:
        """The prompt of the checkpoint's turn, whole: a rewound conversation offers it again."""
        return prompt_at(self.paths, checkpoint)

    async def go_back(self, target: Checkpoint, mode: RewindMode) -> tuple[list[str], bool]:
        """The rewind's report, and whether the runtime is now in a new session (the
        conversation was rewound: that report's last line, "resume it", no longer applies)."""
        code, conversation = mode in ("code", "both"), mode in ("conversation", "both")
        result = await asyncio.to_thread(
            rewind, self._store(), target, code=code, conversation=conversation,
            session_id=self.session.id,
        )  # fmt: skip
        lines = result.report(target)
        if result.new_session is None:
            return lines, False
        self.switch(result.new_session)
        return lines[:-1], True
