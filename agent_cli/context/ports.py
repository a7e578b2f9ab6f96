"""The loop's extension points (on the capabilities floor: the context stages implement them).

- Stage: before every request, may rewrite the stored history (the context pipeline lives here).
- Guide: adds request-only text blocks to one request and never to history (the todo reminder
  lives here); it also observes each finished tool round.
- TurnObserver: hears the user's message, every event and each round's end; changes nothing.
- Compactor: compaction on request (`compact` tool, /compact) and on prompt-too-long.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent_cli.core.messages import Block, Message
from agent_cli.model.usage import Usage

if TYPE_CHECKING:
    from agent_cli.core.events import Event
    from agent_cli.core.tool_contract import ToolResult
    from agent_cli.model.client import ModelClient
    from agent_cli.session.state import Session


@dataclass
class Compacted:
    """A rewritten history and what to tell the user and the transcript about it."""

    messages: list[Message]
    stage: str
    archive_path: str | None = None
    tokens_before: int = 0
    tokens_after: int = 0


@dataclass
class StageContext:
    session: Session
    client: ModelClient
    emit: Callable[[Event], None]
    # usage of the previous request: lets token estimates be calibrated against the API's count
    last_usage: Usage | None
    last_request_messages: int


class Stage(Protocol):
    name: str

    async def apply(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        """Return None to leave the history unchanged."""
        ...


class Guide(Protocol):
    def guidance(self, messages: list[Message]) -> list[Block]:
        """Text blocks for the next request only."""
        ...

    def after_round(self, calls: list[Block], results: list[ToolResult]) -> None: ...


class TurnObserver(Protocol):
    """Hears a turn without taking part in it (episodic memory)."""

    def on_user_message(self, text: str) -> None:
        """Before the message enters history."""
        ...

    def on_event(self, event: Event) -> None: ...

    def on_round_end(self) -> None:
        """A tool round is over: every call has its result in history."""
        ...


class Compactor(Protocol):
    async def compact(
        self, messages: list[Message], focus: str | None, ctx: StageContext
    ) -> Compacted | None: ...

    async def recover(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        """After prompt-too-long: shrink hard enough that a retry can fit."""
        ...
