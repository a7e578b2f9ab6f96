"""The turn hook: a checkpoint before the turn's prompt enters history, and what the turn
changed once it ends. A store that fails warns and never stops the turn."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from agent_cli.core.events import CheckpointSaved, Event, FilesChanged, TurnEnd, WarningEvent
from agent_cli.core.snapshot_hold import holding
from agent_cli.ext.checkpoints.conversation import transcript_size
from agent_cli.ext.checkpoints.git import GitError
from agent_cli.ext.checkpoints.records import Checkpoint
from agent_cli.ext.checkpoints.store import CheckpointStore

log = logging.getLogger(__name__)


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
    store: CheckpointStore | None,
    session_id: str,
    transcript: Path | None,
    prompt: str,
    turn: AsyncIterator[Event],
) -> AsyncIterator[Event]:
    """`turn`'s events, after a CheckpointSaved; a FilesChanged comes just before TurnEnd.

    The snapshot is taken beside the turn's start (its first model request goes out meanwhile:
    in a new store it is several git calls) and waited for before the turn's first event is
    passed on, so before any tool of the turn can run; a process the turn starts before then
    (a hook, an MCP server) waits for it too (core/snapshot_hold)."""
    if store is None:
        async for event in turn:
            yield event
        return
    checkpoint: Checkpoint | None = None
    size = transcript_size(transcript)
    pending = asyncio.ensure_future(asyncio.to_thread(store.take, session_id, prompt, size))
    with holding(pending):
        reported = False
        async for event in turn:
            if not reported:
                reported = True
                checkpoint = await _taken(pending)
                yield _saved(checkpoint, pending)
            if isinstance(event, TurnEnd) and checkpoint is not None:
                try:
                    yield await asyncio.to_thread(turn_files, store, checkpoint)
                except (GitError, OSError) as e:
                    log.warning("the end of the turn was not snapshotted: %s", e)
            yield event
        if not reported:
            yield _saved(await _taken(pending), pending)


async def _taken(pending: asyncio.Future[Checkpoint]) -> Checkpoint | None:
    try:
        return await pending
    except (GitError, OSError) as e:
        log.warning("no checkpoint for this turn: %s", e)
        return None


def _saved(checkpoint: Checkpoint | None, pending: asyncio.Future[Checkpoint]) -> Event:
    if checkpoint is None:
        return WarningEvent(message=f"no checkpoint for this turn ({pending.exception()})")
    skipped = [s.path for s in checkpoint.skipped]
    return CheckpointSaved(id=checkpoint.id, turn=checkpoint.turn, skipped=skipped)
