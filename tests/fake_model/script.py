"""Scripts: what the fake model answers, one step per request, so tests read as dialogues.

    script.tool_use("read_file", path="a.py").text("done")

Each request the server routes to a script consumes its next step. Every builder returns the script,
so calls chain, and takes these keywords:

- ``delay``: seconds to sleep before answering (concurrency tests).
- ``stop_reason``: overrides the derived one ("tool_use" when the reply has a tool_use, else
  "end_turn"), e.g. ``script.text("cut", stop_reason="max_tokens")``.
- ``usage``: fields that override the server's estimate (input_tokens, output_tokens,
  cache_read_input_tokens, cache_creation_input_tokens).
- ``drop_after``: stream that many SSE events of this reply, then cut the TCP connection. Every
  event counts, in order: message_start=1, ping=2, the first content_block_start=3, ...; so
  ``script.text("partial answer", drop_after=4)`` delivers one text chunk and breaks. A
  non-streaming request gets half of the JSON body, then the cut.
- ``stall_after``: stream that many SSE events, then wait ``delay`` seconds before the rest (a
  reply that stops mid-sentence: what a user interrupts; with 0, a stream that sends its
  headers and then nothing; inside a tool_use's deltas, a call that never finishes).

Errors: ``script.error(529)`` answers with the API's error body and tiny retry-after headers so the
SDK's own retry is fast; ``script.error(529, mid_stream=True)`` breaks a stream with an
error event; ``script.prompt_too_long()`` is the 400 the API gives for an oversized
prompt. ``script.respond(fn)`` calls ``fn(request_body)`` at request time; fn returns a step, a
one-step Script, or a string (a text reply).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

Body: TypeAlias = dict[str, Any]

DEFAULT_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
PROMPT_TOO_LONG = "prompt is too long: 210000 tokens > 200000 maximum"


@dataclass(frozen=True)
class Reply:
    """A successful reply: content blocks as plain dicts (tool_use ids are filled in later)."""

    blocks: list[dict[str, Any]]
    stop_reason: str | None = None
    usage: Mapping[str, int] | None = None
    delay: float = 0.0
    drop_after: int | None = None
    chunks: int = 3  # text_delta (and thinking_delta) pieces per text (thinking) block
    pace: float = 0.0  # seconds between streamed events (a reply that takes its time)
    stall_after: int | None = None

    def final_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        has_tool = any(b.get("type") == "tool_use" for b in self.blocks)
        return "tool_use" if has_tool else "end_turn"


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error with the API's error body ``{"type": "error", "error": {...}}``."""

    status: int
    error_type: str
    message: str
    retry_after: float | None = None
    delay: float = 0.0
    should_retry: bool | None = None  # sent as x-should-retry when not None
    mid_stream: bool = (
        False  # a streaming request gets 200, message_start, ping, then an error event
    )


@dataclass(frozen=True)
class Respond:
    """A step decided at request time from the request body."""

    fn: Callable[[Body], Step | Script | str]


Step: TypeAlias = Reply | ErrorReply | Respond


@dataclass
class Script:
    """An ordered queue of steps; thread-safe, as concurrent requests may share one."""

    steps: deque[Step] = field(default_factory=deque)
    served: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- builders ---------------------------------------------------------------------------

    def text(
        self,
        text: str,
        /,
        *,
        stop_reason: str | None = None,
        usage: Mapping[str, int] | None = None,
        delay: float = 0.0,
        drop_after: int | None = None,
        chunks: int = 3,
        pace: float = 0.0,
        stall_after: int | None = None,
    ) -> Script:
        """One text block, streamed in `chunks` deltas `pace` seconds apart."""
        block = {"type": "text", "text": text}
        step = Reply([block], stop_reason, usage, delay, drop_after, chunks, pace, stall_after)
        return self.add(step)

    def tool_use(
        self,
        name: str,
        input: Mapping[str, Any] | None = None,
        /,
        *,
        stop_reason: str | None = None,
        usage: Mapping[str, int] | None = None,
        delay: float = 0.0,
        drop_after: int | None = None,
        stall_after: int | None = None,
        **kwargs: Any,
    ) -> Script:
        """One tool_use block; input from the mapping and/or keywords (stop_reason "tool_use")."""
        args = {**(input or {}), **kwargs}
        return self.tool_uses(
            (name, args),
            stop_reason=stop_reason,
            usage=usage,
            delay=delay,
            drop_after=drop_after,
            stall_after=stall_after,
        )

    def tool_uses(
        self,
        *calls: tuple[str, Mapping[str, Any]],
        text: str | None = None,
        stop_reason: str | None = None,
        usage: Mapping[str, int] | None = None,
        delay: float = 0.0,
        drop_after: int | None = None,
        stall_after: int | None = None,
    ) -> Script:
        """Several tool_use blocks in one reply, optionally after a text block."""
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks += [{"type": "tool_use", "name": n, "input": dict(i)} for n, i in calls]
        return self.reply(
            blocks,
            stop_reason=stop_reason,
            usage=usage,
            delay=delay,
            drop_after=drop_after,
            stall_after=stall_after,
        )

    def reply(
        self,
        blocks: list[dict[str, Any]],
        *,
        stop_reason: str | None = None,
        usage: Mapping[str, int] | None = None,
        delay: float = 0.0,
        drop_after: int | None = None,
        chunks: int = 3,
        stall_after: int | None = None,
    ) -> Script:
        """General form: blocks like {"type": "text", "text": ...}, {"type": "tool_use", "name":
        ..., "input": {...}} (id optional; an input given as a string is streamed verbatim, as
        a model's invalid JSON would be), {"type": "thinking", "thinking": ..., "signature":
        ...}. Text and thinking are streamed in `chunks` deltas each."""
        step = Reply(
            [dict(b) for b in blocks],
            stop_reason,
            usage,
            delay,
            drop_after,
            chunks,
            0.0,
            stall_after,
        )
        return self.add(step)

    def error(
        self,
        status: int,
        error_type: str | None = None,
        message: str | None = None,
        *,
        retry_after: float | None = None,
        should_retry: bool | None = None,
        mid_stream: bool = False,
        delay: float = 0.0,
    ) -> Script:
        """An HTTP error; the type defaults by status (529 overloaded_error, 429 rate_limit_error,
        500 api_error, 400 invalid_request_error). With ``mid_stream`` a streaming request gets a
        200 whose stream carries an ``error`` event after message_start and ping, as the API does
        when it overloads mid-reply (the SDK raises a plain APIStatusError, status 200, and does not
        retry); a non-streaming request gets the HTTP error."""
        kind = error_type or DEFAULT_ERROR_TYPES.get(status, "api_error")
        text = message or f"fake {kind} ({status})"
        step = ErrorReply(status, kind, text, retry_after, delay, should_retry, mid_stream)
        return self.add(step)

    def prompt_too_long(self, *, delay: float = 0.0) -> Script:
        """The API's 400 for a prompt over the context window."""
        return self.error(400, "invalid_request_error", PROMPT_TOO_LONG, delay=delay)

    def respond(self, fn: Callable[[Body], Step | Script | str], *, times: int = 1) -> Script:
        """``times`` steps decided by ``fn(request_body)`` when the request arrives."""
        for _ in range(times):
            self.add(Respond(fn))
        return self

    def add(self, step: Step) -> Script:
        with self._lock:
            self.steps.append(step)
        return self

    # -- serving ----------------------------------------------------------------------------

    def pending(self) -> int:
        """How many steps are still unserved."""
        with self._lock:
            return len(self.steps)

    def next_step(self, body: Body) -> Reply | ErrorReply | None:
        """Consume the next step for ``body``; None when the script is exhausted."""
        with self._lock:
            if not self.steps:
                return None
            step = self.steps.popleft()
            self.served += 1
        return resolve(step, body)


def resolve(step: Step | Script | str, body: Body) -> Reply | ErrorReply:
    """Turn a dynamic answer (a Respond, a one-step Script or a string) into a concrete step."""
    if isinstance(step, str):
        return Reply([{"type": "text", "text": step}])
    if isinstance(step, Script):
        inner = step.next_step(body)
        if inner is None:
            raise ValueError("respond() function returned an empty Script")
        return inner
    if isinstance(step, Respond):
        return resolve(step.fn(body), body)
    return step
