"""The model client's stream items, as the loop's events (the final reply is the loop's own:
it iterates the stream and asks `events(item)` of each, a generator less for every delta).

Text and thinking are shown through a `StreamRedactor` each, one for the agent's life: a secret
split across deltas is masked as in the whole reply, and a reader joining every delta of a
session (an ACP editor, a stream-json consumer) never gets one whole. A stream is cut where it
ends: at the other kind's delta, a server tool call, a restart and the reply's end."""

from __future__ import annotations

from agent_cli.core.events import (
    Event,
    Retrying,
    StreamRestart,
    TextDelta,
    ThinkingDelta,
    WarningEvent,
)
from agent_cli.core.text.stream_redaction import StreamRedactor
from agent_cli.loop import server_turn
from agent_cli.model.client import (
    Final,
    Notice,
    Restart,
    Retry,
    ServerToolCall,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
)


class ShownStream:
    def __init__(self, secrets: tuple[str, ...]) -> None:
        self.text = StreamRedactor(secrets)
        self.thinking = StreamRedactor(secrets)
        self.streamed: list[str] = []  # the text shown of the reply being streamed

    def interrupted(self) -> str:
        """The text of a reply the user stopped, the part held back included."""
        self.thinking.drop()
        text = "".join(self.streamed) + self.text.drop()
        self.streamed.clear()
        return text

    def events(self, item: StreamEvent) -> list[Event]:
        if isinstance(item, TextChunk):
            return [*self._cut(thinking=True), *self._text(self.text.feed(item.text))]
        if isinstance(item, ThinkingChunk):
            shown = self._cut(text=True, thinking=item.redacted)
            if item.redacted:
                return [*shown, ThinkingDelta(text="", redacted=True)]
            return [*shown, *_thought(self.thinking.feed(item.text))]
        if isinstance(item, ServerToolCall | Restart | Retry | Final):
            shown = self._cut(text=True, thinking=True)
            if isinstance(item, Restart | Retry):
                self.streamed.clear()  # the reply starts over (a silent one is dropped too)
            return [*shown, *as_events(item)]
        return as_events(item)

    def cut(self) -> list[Event]:
        """What is held back of both, shown now (the request failed)."""
        return self._cut(text=True, thinking=True)

    def _cut(self, text: bool = False, thinking: bool = False) -> list[Event]:
        return [
            *_thought(self.thinking.cut() if thinking else ""),
            *self._text(self.text.cut() if text else ""),
        ]

    def _text(self, text: str) -> list[Event]:
        if not text:
            return []
        self.streamed.append(text)
        return [TextDelta(text=text)]


def _thought(text: str) -> list[Event]:
    return [ThinkingDelta(text=text)] if text else []


def as_events(item: StreamEvent) -> list[Event]:
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
