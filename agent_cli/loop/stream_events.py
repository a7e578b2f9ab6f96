"""The model client's stream, as the loop's events (the final reply is the loop's own)."""

from __future__ import annotations

from agent_cli.core.events import (
    Event,
    Retrying,
    StreamRestart,
    TextDelta,
    ThinkingDelta,
    WarningEvent,
)
from agent_cli.loop import server_turn
from agent_cli.model.client import (
    Notice,
    Restart,
    Retry,
    ServerToolCall,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
)


def as_events(item: StreamEvent) -> list[Event]:
    if isinstance(item, TextChunk):
        return [TextDelta(text=item.text)]
    if isinstance(item, ThinkingChunk):
        return [ThinkingDelta(text=item.text, redacted=item.redacted)]
    if isinstance(item, ServerToolCall):
        return server_turn.call_events(item)
    if isinstance(item, Notice):
        return [WarningEvent(message=item.message)]
    if isinstance(item, Restart):
        return [StreamRestart(attempt=item.attempt, reason=item.reason)]
    if isinstance(item, Retry):
        return [
            Retrying(
                reason=item.reason,
                delay_s=item.delay_s,
                attempt=item.attempt,
                attempts=item.attempts,
            )
        ]
    return []


def follow(streamed: list[str], event: Event) -> None:
    """The text of the reply being streamed (a restart starts it over)."""
    if isinstance(event, TextDelta):
        streamed.append(event.text)
    elif isinstance(event, StreamRestart):
        streamed.clear()
