"""EpisodeManager: watches a session, decides when an episode is due (memory/triggers.py) and
writes it in the background; the turn never waits for it.

Seams for the loop, the runtime and the REPL:
- a loop TurnObserver: `on_user_message(text)` before each turn, `on_event(event)` for every
  event (TodosUpdated and TurnEnd matter here), `on_round_end()` after each tool round;
- `on_todos(old, new)`, `remember()` (/remember);
- `await wait(timeout)` before the process exits (`agent run`, `agent chat`);
- `on_saved` (optional callback): told of each episode written (the REPL shows it).

A trigger met in the middle of a round waits for the round's results, so the episode sees them;
its writing starts once it takes nothing from the turn (session/model_wait.py): between turns,
or while the turn's request has waited on the model for a while.
A generation that fails (API error) is retried once at the next trigger point (round end, turn
end, next message or exit); failing again drops that stretch with a warning.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.events import Event, TodosUpdated, TurnEnd, WarningEvent
from agent_cli.core.messages import Message
from agent_cli.core.payloads import TodoItem
from agent_cli.memory import triggers
from agent_cli.model.client import ModelClient
from agent_cli.session.state import Session
from agent_cli.session.transcript import EpisodeRecord

if TYPE_CHECKING:
    from agent_cli.memory import generator
    from agent_cli.memory.episode import Episode, EpisodeDraft
    from agent_cli.memory.episode_store import EpisodeStore

log = logging.getLogger(__name__)


class EpisodeManager:
    def __init__(
        self,
        session: Session,
        client: ModelClient,
        store: EpisodeStore | None = None,
        emit: Callable[[Event], None] | None = None,
    ) -> None:
        self.session = session
        self.client = client
        self._store = store
        self.emit = emit
        self.latest: Episode | None = None  # newest episode written here (side panel)
        self.on_saved: Callable[[Episode], None] | None = None
        self._todos: list[TodoItem] = list(session.todos.items)  # restored on resume
        self._cursor: Message | None = None  # the last message an episode covered
        self._covered = 0  # and its position then
        self._pending: triggers.Trigger | None = None  # met mid-round: fired at its end
        self._retry = False
        self._failed_once = False
        self._rounds = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock = asyncio.Lock()
        self._touched_before: set[Path] = set(session.tool_ctx.touched)
        self._prompt = ""
        self._files_changed = False
        self._context: set[str] = set()
        if session.messages and self._has_episodes():
            self._advance(len(session.messages))  # resumed: earlier work is summarised

    @property
    def busy(self) -> bool:
        return any(not t.done() for t in self._tasks)

    # -- observing --------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        if isinstance(event, TodosUpdated):
            self.on_todos(self._todos, event.todos)
        elif isinstance(event, TurnEnd):
            self.session.model_wait.turn_ended()
            self.on_turn_end(event.text)

    def on_todos(self, old: Sequence[TodoItem], new: Sequence[TodoItem]) -> None:
        if triggers.todos_completed(old, new):
            self._pending = "todos"
        self._todos = list(new)

    def on_round_end(self) -> None:
        self._rounds += 1
        if self._pending is not None:
            self._fire(self._pending)
        elif self._retry:
            self._fire("retry")
        elif not self.busy and triggers.length_reached(
            self._rounds, triggers.estimate_tokens(self.since_last()), self.session.settings.memory
        ):
            self._fire("length")

    def on_turn_end(self, final_text: str) -> None:
        touched = self.session.tool_ctx.touched - self._touched_before
        self._files_changed = bool(touched)
        self._context = triggers.context_words([self._prompt, final_text], touched)
        if self._pending is not None:
            self._fire(self._pending)
        elif self._retry:
            self._fire("retry")

    def on_user_message(self, text: str) -> None:
        """Call before the turn starts (before the message enters history)."""
        self.session.model_wait.turn_started()
        rule = triggers.next_message_trigger(text, self._files_changed, self._context)
        if rule is not None:
            self._fire(rule)
        elif self._retry:
            self._fire("retry")
        self._prompt, self._files_changed = text, False
        self._touched_before = set(self.session.tool_ctx.touched)

    def remember(self) -> bool:
        """/remember: write an episode now. False when nothing happened since the last one."""
        return self._fire("remember")

    async def wait(self, timeout: float) -> bool:
        """Wait for background work, running a pending retry too; True if all finished."""
        self.session.model_wait.turn_ended()  # asked once no turn runs (a run's or chat's end)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if self._retry and not self.busy:
                self._fire("retry")
            tasks = [t for t in self._tasks if not t.done()]
            if not tasks:
                return True
            _, still = await asyncio.wait(tasks, timeout=max(0.0, deadline - loop.time()))
            if still:
                break
        for task in still:
            task.cancel()
        await asyncio.gather(*still, return_exceptions=True)
        self._warn(f"episode generation did not finish within {timeout:g} s; abandoned")
        return False

    # -- generating -------------------------------------------------------------------------

    def since_last(self, end: int | None = None) -> list[Message]:
        """The live history after the last message an episode covered, up to `end` (all of it
        when a compaction removed that message)."""
        messages = self.session.messages[:end]
        start = self._covered_index(messages)
        return messages[start:]

    def _covered_index(self, messages: list[Message]) -> int:
        # the loop repairs (copies) the history each turn: compare by value, not identity
        cursor, at = self._cursor, self._covered
        if cursor is None:
            return 0
        if 0 < at <= len(messages) and messages[at - 1] == cursor:
            return at
        for i in range(len(messages) - 1, -1, -1):
            if messages[i] == cursor:
                return i + 1
        return 0

    def _advance(self, end: int) -> None:
        """Mark the history up to `end` (a length of the history when the work was fired)
        as covered."""
        messages = self.session.messages
        end = min(end, len(messages))
        self._cursor, self._covered = (messages[end - 1], end) if end else (None, 0)

    def _fire(self, reason: triggers.Trigger) -> bool:
        self._pending = None
        if reason == "retry":
            self._retry = False
        if not self.since_last() and not self.busy:
            return False
        self._rounds = 0
        end = len(self.session.messages)  # the episode covers the history as it is now
        task = asyncio.get_running_loop().create_task(self._run(reason, end))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _run(self, reason: triggers.Trigger, end: int) -> None:
        # never on the turn's time: between turns, or while its request waits on the model
        await self.session.model_wait.quiet()
        async with self._lock:  # one at a time, so each covers the stretch after the last
            span = self.since_last(end)
            if not span:
                return
            log.info("episode: generating (%s, %d messages)", reason, len(span))
            try:
                result = await self._generate(span)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self._failed(end, e)
                return
            self._failed_once = False
            self._advance(end)
            if result.draft is None:
                self._warn(f"episode dropped: the reply was invalid twice ({result.problem})")
                return
            self._commit(result.draft)

    @property
    def store(self) -> EpisodeStore:
        """The workspace's episode index (its code imported when an episode is first due)."""
        if self._store is None:
            from agent_cli.memory.episode_store import EpisodeStore

            self._store = EpisodeStore(self.session.paths.index_db)
        return self._store

    async def _generate(self, span: list[Message]) -> generator.Generated:
        from agent_cli.memory import generator  # an episode's writing: at its trigger, not before

        # off the loop: the first touch of the index creates it (schema, WAL: tens of ms of
        # disk work) and the turn goes on meanwhile; only a read, so a cancel leaves nothing
        own = await asyncio.to_thread(self.store.of_session, self.session.id)
        previous = own[-1] if own else None
        ctx = self.session.tool_ctx
        text = generator.build_input(span, previous, own, ctx.secrets)
        system = generator.system_prompt(ctx.workspace)
        result = await generator.generate(self.client, self.session.model, system, text)
        for reply in result.replies:
            self.session.account(reply.usage, generator.CALLER, reply.model)
        return result

    def _failed(self, end: int, error: Exception) -> None:
        if self._failed_once:
            self._failed_once = False
            self._advance(end)
            self._warn(f"episode dropped after a retry: {type(error).__name__}: {error}")
            return
        log.warning("episode generation failed (retried at the next trigger): %s", error)
        self._failed_once = self._retry = True

    def _commit(self, draft: EpisodeDraft) -> Episode:
        episode = self._to_episode(draft)
        self.store.save(episode)
        self.session.record(EpisodeRecord(episode=episode.model_dump(mode="json")))
        self.latest = episode
        log.info("episode %s saved: %s", episode.id, episode.title)
        if self.on_saved is not None:
            self.on_saved(episode)
        return episode

    def _to_episode(self, draft: EpisodeDraft) -> Episode:
        from agent_cli.memory.episode import Episode, new_episode_id, relative_path

        workspace = self.session.tool_ctx.workspace
        fields = draft.model_dump(exclude={"revises"})
        for change in fields["code_changes"]:
            change["file"] = relative_path(change["file"], workspace)
        fields["code_fingerprints"] = [
            relative_path(f, workspace) for f in fields["code_fingerprints"]
        ]
        own = {e.id: e for e in self.store.of_session(self.session.id)}
        revised = own.get(draft.revises or "")
        episode_id = revised.id if revised else new_episode_id()
        fields["depends_on"] = [
            d for d in self.store.existing(fields["depends_on"]) if d != episode_id
        ]
        extra = {"created": revised.created} if revised else {}
        return Episode(
            **fields, id=episode_id, session=self.session.id, workspace=str(workspace), **extra
        )

    def _has_episodes(self) -> bool:
        if not self.store.db_path.exists():
            return False
        try:
            return bool(self.store.of_session(self.session.id))
        except sqlite3.Error as e:
            log.warning("episode index unreadable: %s", e)
            return False

    def _warn(self, message: str) -> None:
        log.warning("%s", message)
        if self.emit is not None:
            self.emit(WarningEvent(message=message))
