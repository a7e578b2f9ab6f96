"""The seam between the loop and a model provider: a request, stream events, a reply."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_cli.core.messages import Block, Message
from agent_cli.model.usage import Usage


@dataclass
class ModelRequest:
    model: str
    system: list[Block]
    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int = 16_000
    # request-only text blocks appended to the last user message of this request alone
    guidance: list[Block] = field(default_factory=list)
    caller: str = "main"
    # extended thinking: the budget in tokens (None: off); interleaved thinks between tool calls
    thinking_budget: int | None = None
    interleaved_thinking: bool = True
    # {"type": "none"}: the tools are offered (the history's calls need them) but not callable
    tool_choice: dict[str, Any] | None = None
    # how long the prompt cache keeps what this request writes: "5m" (the API's default) or "1h"
    cache_ttl: str = "5m"


@dataclass
class ModelReply:
    content: list[Block]
    stop_reason: str | None
    usage: Usage
    model: str
    # tool_use id -> why that call must not run (invalid JSON input, a reused id)
    not_run: dict[str, str] = field(default_factory=dict)

    def tool_uses(self) -> list[Block]:
        return [b for b in self.content if b.get("type") == "tool_use"]

    def text(self) -> str:
        return "".join(b.get("text", "") for b in self.content if b.get("type") == "text")


@dataclass
class TextChunk:
    text: str


@dataclass
class ThinkingChunk:
    """Thinking as it streams; ``redacted`` for an encrypted block (no text to show)."""

    text: str
    redacted: bool = False


@dataclass
class Restart:
    """The stream broke; the whole request is being sent again."""

    attempt: int
    reason: str


@dataclass
class Retry:
    """The request failed before any reply came and is sent again after `delay_s`."""

    reason: str  # "529 overloaded", "connection refused"
    delay_s: float
    attempt: int  # 1 for the first retry
    attempts: int  # retries allowed


@dataclass
class ServerToolCall:
    """A server tool (web search) ran inside the reply: its call and its result, as received."""

    use: Block
    result: Block


@dataclass
class Notice:
    """Something the user should hear once, e.g. that web search is not offered here."""

    message: str


@dataclass
class Final:
    reply: ModelReply


StreamEvent = TextChunk | ThinkingChunk | Restart | Retry | ServerToolCall | Notice | Final


class ModelClient(Protocol):
    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Yields text chunks as they arrive and ends with exactly one Final."""
        ...

    async def close(self) -> None: ...
