"""The port through which the loop runs hooks around a turn (SPEC §12): `user_prompt_submit`
may veto the prompt before anything is stored (or add blocks to it); `stop` runs when the turn
ends and may give a reason to keep working (the loop bounds how often). A `TurnWrapper` wraps
the whole turn's events (a checkpoint before it).

A hook or a wrapper may also be `TurnEnds` (an extension's: claims, goals, checkpoints): it
tells events as the turn ends, before its TurnEnd, and once the end was told it may follow the
turn with another message, a turn of its own (a goal's check failed: what it said is sent)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from agent_cli.core.events import ErrorEvent, Event, TurnEnd
from agent_cli.core.messages import Block


class TurnHooks(Protocol):
    async def before_turn(self, blocks: list[Block]) -> list[Event]:
        """Empty to go on; otherwise the events that end the vetoed turn. May rewrite or add
        to `blocks` in place (a slash command's expansion, a hook's extra context)."""
        ...

    async def after_turn(self, end: TurnEnd) -> str | None:
        """None to end the turn; a reason (sent to the model) to keep it working."""
        ...


@dataclass
class FollowUp:
    """What hooks add once a turn's end was told: events, then the user's next message."""

    events: list[Event] = field(default_factory=list)
    message: str | None = None  # sent as the next prompt: another turn follows


@runtime_checkable
class TurnEnds(Protocol):
    async def at_end(self, end: TurnEnd, tell: Callable[[Event], None]) -> None:
        """Before `end` is told: each event `tell`s is heard by the turn's observers at once
        (a later hook's ledger too) and told just before the TurnEnd."""
        ...

    async def follow_up(self, end: TurnEnd, error: ErrorEvent | None) -> FollowUp | None:
        """After the turn (`error`: what it failed with, if it did): None when it is over."""
        ...


class TurnWrapper(Protocol):
    def around(self, prompt: list[Block], turn: AsyncIterator[Event]) -> AsyncIterator[Event]:
        """`turn`'s events with what this adds. Called as the turn starts, before any hook and
        before `prompt` (the user's blocks, as sent: read them before iterating `turn`, which
        may rewrite them) enters history."""
        ...


class TurnHooksChain:
    """Several TurnHooks in order: the first veto wins, the first reason to go on wins, every
    one's end events in order, the first next message wins."""

    def __init__(self, hooks: list[TurnHooks]) -> None:
        self.hooks = hooks

    async def before_turn(self, blocks: list[Block]) -> list[Event]:
        for hooks in self.hooks:
            vetoed = await hooks.before_turn(blocks)
            if vetoed:
                return vetoed
        return []

    async def after_turn(self, end: TurnEnd) -> str | None:
        reasons = [await hooks.after_turn(end) for hooks in self.hooks]
        return next((r for r in reasons if r), None)

    async def at_end(self, end: TurnEnd, tell: Callable[[Event], None]) -> None:
        for hooks in self.hooks:
            if isinstance(hooks, TurnEnds):
                await hooks.at_end(end, tell)

    async def follow_up(self, end: TurnEnd, error: ErrorEvent | None) -> FollowUp | None:
        found = FollowUp()
        for hooks in self.hooks:
            if isinstance(hooks, TurnEnds) and (more := await hooks.follow_up(end, error)):
                found.events += more.events
                found.message = found.message or more.message
        return found if found.events or found.message else None


def prompt_text(blocks: list[Block]) -> str:
    return "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


def veto_events(reason: str) -> list[Event]:
    message = f"The prompt was vetoed by a user_prompt_submit hook: {reason}"
    return [
        ErrorEvent(kind="HookVetoError", message=message, exit_code=1),
        TurnEnd(stop="error", text="", rounds=0),
    ]
