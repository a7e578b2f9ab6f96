"""The edges of a turn: the user's message taken into history (unless a hook vetoes it), the
observers hearing every event, the hooks' say as the turn ends (a Stop hook's reason to go on,
the events told just before the TurnEnd) and the message they may follow it with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_cli.context.ports import TurnObserver
from agent_cli.core import history
from agent_cli.core.events import ErrorEvent, Event, TurnEnd
from agent_cli.core.messages import Block
from agent_cli.loop.shown import ShownTurn, record_notice
from agent_cli.policy.turn_hooks import FollowUp, TurnEnds, TurnHooks, TurnWrapper
from agent_cli.session.state import Session


@dataclass
class TurnEdges:
    session: Session
    observers: Sequence[TurnObserver]
    hooks: TurnHooks | None
    wrappers: Sequence[TurnWrapper] = ()  # a wrapper's end is told first (what the turn changed)
    ended: TurnEnd | None = None  # how the newest turn ended, and what it failed with
    error: ErrorEvent | None = None
    shown: ShownTurn | None = None  # the main agent's: what its screen showed, kept

    async def begin(self, blocks: list[Block]) -> list[Event]:
        """The user's message into history; a hook's veto: its events, and nothing stored."""
        text = "\n".join(b.get("text", "") for b in blocks)
        self.ended, self.error = None, None
        for observer in self.observers:
            observer.on_user_message(text)  # before it enters history (next-message triggers)
        typed = len(blocks)
        if self.hooks and (vetoed := await self.hooks.before_turn(blocks)):
            for event in vetoed:
                self._seen(event)
            return vetoed
        for block in blocks[typed:]:  # a hook's context (a goal's instruction), not the user's
            self._notice("context", str(block.get("text", "")))
        self.session.current_request = text  # §8
        self.session.append({"role": "user", "content": blocks})
        # after an interrupt the history ends with a user message of results: merge, as resume does
        self.session.messages = history.repair(self.session.messages)
        return []

    async def ending(self, end: TurnEnd) -> list[Event] | None:
        """What the wrappers, then the hooks tell before `end` (heard as told); None when a
        Stop hook keeps the turn working (its reason is the next message)."""
        if self.hooks is not None:
            reason = await self.hooks.after_turn(end)
            if reason and end.stop == "done":
                self._notice("hook", reason)
                self.session.append(history.user_text(reason))
                self.session.messages = history.repair(self.session.messages)
                return None
        told: list[Event] = []

        def tell(event: Event) -> None:
            self.hear(event)
            told.append(event)

        for ends in [*self.wrappers, self.hooks]:
            if isinstance(ends, TurnEnds):
                await ends.at_end(end, tell)
        return told

    async def follow_up(self) -> FollowUp | None:
        """Once a turn is over: what its hooks add (events), and the next message they send
        (a goal not yet met); None when there is nothing."""
        if self.ended is None or not isinstance(self.hooks, TurnEnds):
            return None
        return await self.hooks.follow_up(self.ended, self.error)

    def hear(self, event: Event) -> None:
        self._seen(event)
        if self.shown is not None:
            self.shown.passed(event)
        for observer in self.observers:
            observer.on_event(event)

    def _notice(self, source: str, text: str) -> None:
        if self.shown is not None:
            record_notice(self.session, source, text)

    def _seen(self, event: Event) -> None:
        if isinstance(event, TurnEnd):
            self.ended = event
        elif isinstance(event, ErrorEvent):
            self.error = event
