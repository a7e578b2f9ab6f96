"""The turn's checkpoint (the extension's turn wrapper): a checkpoint before the turn first may
change the workspace, and what the turn changed once it ends, told as the loop ends the turn (its
observers hear it before the TurnEnd: a claim is marked knowing a bash edit of its turn). A
store that fails warns and never stops the turn. The store's own modules are imported in the
snapshot's thread, when the turn first needs it."""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.events import CheckpointSaved, Event, FilesChanged, TurnEnd, WarningEvent
from agent_cli.core.snapshot_hold import Hold, holding

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
    """A turn's checkpoint: taken when something first needs it, or as the turn ends; told
    once; and whether what the turn changed was told."""

    hold: Hold | None = None
    told: bool = False
    ended: bool = False
    _outcome: asyncio.Future[Opened | None] | None = None

    def taken_yet(self) -> bool:
        taking = self.hold.taking if self.hold is not None else None
        return taking is not None and taking.done()

    async def opened(self) -> Opened | None:
        """The checkpoint, taken now if nothing needed it yet (a failure is warned of once)."""
        if self.hold is None:
            return None
        if self._outcome is None:
            self._outcome = asyncio.ensure_future(_taken(self.hold.begun()))
        return await self._outcome

    async def saved(self) -> Event | None:
        """Its CheckpointSaved (or the warning that there is none), the first time asked."""
        if self.told or self.hold is None:
            return None
        self.told = True
        opened = await self.opened()
        return _saved(opened, self.hold.begun())

    async def end(self) -> FilesChanged | None:
        """The turn's end snapshotted (once): what it changed; None without a checkpoint."""
        if self.ended:
            return None
        self.ended = True
        opened = await self.opened()
        return None if opened is None else await _ended(*opened)

    def taken_anyway(self) -> None:
        """A turn stopped before anything needed its checkpoint still gets one (`/undo` takes
        that turn back), taken on its own: nobody waits for a stopped turn."""
        if self.hold is not None and self.hold.taking is None:
            self.hold.begun().add_done_callback(_warned)


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
    """`turn`'s events with its CheckpointSaved once the checkpoint is taken; a FilesChanged
    comes just before TurnEnd (told by the loop through `at_end`, or here: a vetoed turn's).
    `take(transcript size)` opens the store and takes the checkpoint, in a thread.

    The snapshot is taken when the turn first may change the workspace: before a tool that is
    not read-only runs, before a process starts (core/snapshot_hold), else as the turn ends.
    The rewind's cut in the transcript is where it ended as the turn started."""
    size = transcript_size(transcript)

    def start() -> asyncio.Future[Opened]:
        return asyncio.ensure_future(asyncio.to_thread(take, size))

    with holding(start) as hold:
        taken.hold = hold
        try:
            async for event in turn:
                if (taken.taken_yet() or isinstance(event, TurnEnd)) and (
                    saved := await taken.saved()
                ) is not None:
                    yield saved
                if isinstance(event, TurnEnd) and (changed := await taken.end()) is not None:
                    yield changed
                yield event
        except BaseException:
            taken.taken_anyway()
            raise
        if (saved := await taken.saved()) is not None:  # a turn that ended without a TurnEnd
            yield saved


def transcript_size(path: Path | None) -> int:
    """Where the transcript ends as the turn starts: a rewind to it cuts there."""
    try:
        return path.stat().st_size if path is not None else 0
    except OSError:
        return 0


def _warned(taking: asyncio.Future[Opened]) -> None:
    if not taking.cancelled() and (e := taking.exception()) is not None:
        log.warning("no checkpoint for this turn: %s", e)


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
