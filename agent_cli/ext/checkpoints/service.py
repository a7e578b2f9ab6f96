"""Going back, for the whole run (the extension's service: `runtime.extension("checkpoints")`):
the session's checkpoints, what changed since one, /undo and /rewind (code, conversation or
both: a rewound conversation continues as a new session, which the runtime switches to), and
what the goals feature asks of a turn's checkpoint. Front ends ask and show; they never open
the store."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal, Protocol

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


class Running(Protocol):
    """What the service needs of the Runtime it is made from."""

    session: Session
    options: Options

    @property
    def paths(self) -> Paths: ...

    @property
    def settings(self) -> Settings: ...

    def switch(self, resume: str | None = None, fork: bool = False) -> None: ...


class CheckpointService:
    def __init__(self, runtime: Running) -> None:
        self.runtime = runtime

    def _store(self) -> CheckpointStore:
        runtime = self.runtime
        store = open_store(runtime.paths, runtime.options.workspace, runtime.settings.checkpoints)
        if store is None:
            raise CheckpointsOff(CheckpointsOff.__doc__)
        return store

    def checkpoints(self) -> list[Checkpoint]:
        """This session's turns, oldest first. CheckpointsOff when there is no store."""
        return self._store().session_checkpoints(self.runtime.session.id)

    def session_files(self) -> int | None:
        """The panel's "files changed" of a resumed session; None without checkpoints."""
        try:
            return session_files(self._store(), self.runtime.session.id)
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
        return prompt_at(self.runtime.paths, checkpoint)

    async def go_back(self, target: Checkpoint, mode: RewindMode) -> tuple[list[str], bool]:
        """The rewind's report, and whether the runtime is now in a new session (the
        conversation was rewound: that report's last line, "resume it", no longer applies)."""
        code, conversation = mode in ("code", "both"), mode in ("conversation", "both")
        result = await asyncio.to_thread(
            rewind, self._store(), target, code=code, conversation=conversation,
            session_id=self.runtime.session.id,
        )  # fmt: skip
        lines = result.report(target)
        if result.new_session is None:
            return lines, False
        self.runtime.switch(result.new_session)
        return lines[:-1], True

    # -- what a goal's check asks of a turn -----------------------------------------------------

    def last_turn_checkpoint(self) -> str | None:
        """The id of the checkpoint the current session's newest turn took (a turn's
        FilesChanged event carries it too); None before any, or with checkpoints off."""
        try:
            store = self._store()
        except CheckpointsOff:
            return None
        session = self.runtime.session.id
        own = [c for c in store.checkpoints() if c.session_id == session and c.kind == "turn"]
        return own[-1].id if own else None

    def turn_diff(self, checkpoint_id: str) -> str:
        """What the checkpoint's turn changed, a unified diff from its start to its end; ""
        when that is not known (no such checkpoint, the turn has not ended, checkpoints off)."""
        if not checkpoint_id:
            return ""
        try:
            store = self._store()
            start = store.find(checkpoint_id)
            end = store.after_tree(start)
            if end is None:
                return ""
            return store.git.run("diff", "--no-color", start.tree, end).decode("utf-8", "replace")
        except Exception:  # evidence is best effort: the files named still say what changed
            return ""
