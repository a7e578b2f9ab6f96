"""The turn's checkpoint (the extension's turn wrapper): a checkpoint before the turn's prompt
enters history, and what the turn changed once it ends, told as the loop ends the turn (its
observers hear it before the TurnEnd: a claim is marked knowing a bash edit of its turn). A
store that fails warns and never stops the turn. The store's own modules are imported in the
snapshot's thread, beside the turn's first request, not before it."""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.events import CheckpointSaved, Event, FilesChanged, TurnEnd, WarningEvent
from agent_cli.core.snapshot_hold import holding

if TYPE_CHECKING:
    from agent_cli.core.events import ErrorEvent
    from agent_cli.core.messages import Block
    from agent_cli.ext.checkpoints.records import Checkpoint
    from agent_cli.ext.checkpoints.store import CheckpointStore
    from agent_cli.policy.turn_hooks import FollowUp
    from agent_cli.runtime.extensions.contract import ExtensionContext

log = logging.getLogger(__name__)

Opened = tuple["CheckpointStore", "Checkpoint"]


class TurnCheckpoints:
    """Each turn of a session after a checkpoint of the workspace (`agent rewind` takes it
    back); nothing when checkpoints are off or git is not installed."""

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        self._turn: TurnTaken | None = None  # the running turn's checkpoint

    def around(self, prompt: list[Block], turn: AsyncIterator[Event]) -> AsyncIterator[Event]:
        context = self.context
        settings = context.settings.checkpoints
        self._turn = None
        if not settings.enabled or shutil.which("git") is None:
            return turn
        text = next((str(b.get("text", "")) for b in prompt if b.get("type") == "text"), "")
        transcript = context.paths.transcript(context.session_id)

        def take(size: int) -> Opened:
            from agent_cli.ext.checkpoints.store import CheckpointStore

            store = CheckpointStore(context.paths, context.workspace, settings)
            return store, store.take(context.session_id, text, size)

        self._turn = TurnTaken()
        return checkpointed(take, transcript, turn, self._turn)

    async def at_end(self, end: TurnEnd, tell: Callable[[Event], None]) -> None:
        """What the turn changed, told (and heard) before its TurnEnd."""
        if self._turn is not None and (changed := await self._turn.end()) is not None:
            tell(changed)

    async def follow_up(self, end: TurnEnd, error: ErrorEvent | None) -> FollowUp | None:
        return None


@dataclass
class TurnTaken:
    """A turn's checkpoint once taken, and whether what the turn changed was told."""

    opened: Opened | None = None
    ended: bool = False

    async def end(self) -> FilesChanged | None:
        """The turn's end snapshotted (once): what it changed; None without a checkpoint."""
        if self.ended or self.opened is None:
            return None
        self.ended = True
        return await _ended(*self.opened)


def turn_files(store: CheckpointStore, checkpoint: Checkpoint) -> FilesChanged:
    """Snapshot the end of the turn; what it changed and what the session changed so far."""
    end = store.end_turn(checkpoint)
    first = store.session_checkpoints(checkpoint.session_id)[0]
    return FilesChanged(
        checkpoint_id=checkpoint.id,
        files=[c.path for c in store.changed(checkpoint.tree, end.tree)],
        session_files=len(store.changed(first.tree, end.tree)),
    )


def session_files(store: CheckpointStore, session_id: str) -> int | None:
    """Files the session's turns changed, from its first checkpoint to its newest turn's end
    (None before any turn ended): the panel's count on resume."""
    turns = store.session_checkpoints(session_id)
    end = store.after_tree(turns[-1]) if turns else None
    return None if end is None else len(store.changed(turns[0].tree, end))


async def checkpointed(
    take: Callable[[int], Opened],
    transcript: Path | None,
    turn: AsyncIterator[Event],
    taken: TurnTaken,
) -> AsyncIterator[Event]:
    """`turn`'s events, after a CheckpointSaved; a FilesChanged comes just before TurnEnd
    (told by the loop through `at_end`, or here: a vetoed turn's). `take(transcript size)`
    opens the store and takes the checkpoint, in a thread.

    The snapshot is taken beside the turn's start (its first model request goes out meanwhile:
    in a new store it is several git calls) and waited for before the turn's first event is
    passed on, so before any tool of the turn can run; a process the turn starts before then
    (a hook, an MCP server) waits for it too (core/snapshot_hold)."""
    pending = asyncio.ensure_future(asyncio.to_thread(take, transcript_size(transcript)))
    with holding(pending):
        reported = False
        async for event in turn:
            if not reported:
                reported = True
                taken.opened = await _taken(pending)
                yield _saved(taken.opened, pending)
            if isinstance(event, TurnEnd) and (changed := await taken.end()) is not None:
                yield changed
            yield event
        if not reported:
            yield _saved(await _taken(pending), pending)


def transcript_size(path: Path | None) -> int:
    """Where the transcript ends as the turn starts: a rewind to it cuts there."""
    try:
        return path.stat().st_size if path is not None else 0
    except OSError:
        return 0


async def _taken(pending: asyncio.Future[Opened]) -> Opened | None:
    from agent_cli.ext.checkpoints.git import GitError

    try:
        return await pending
    except (GitError, OSError) as e:
        log.warning("no checkpoint for this turn: %s", e)
        return None


async def _ended(store: CheckpointStore, checkpoint: Checkpoint) -> FilesChanged | None:
    from agent_cli.ext.checkpoints.git import GitError

    try:
        return await asyncio.to_thread(turn_files, store, checkpoint)
    except (GitError, OSError) as e:
        log.warning("the end of the turn was not snapshotted: %s", e)
        return None


def _saved(opened: Opened | None, pending: asyncio.Future[Opened]) -> Event:
    if opened is None:
        return WarningEvent(message=f"no checkpoint for this turn ({pending.exception()})")
    checkpoint = opened[1]
    skipped = [s.path for s in checkpoint.skipped]
    return CheckpointSaved(id=checkpoint.id, turn=checkpoint.turn, skipped=skipped)
