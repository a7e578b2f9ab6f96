"""The only module that imports `anthropic`: streaming, retries, cache_control, error mapping.

Requests that fail before a reply opens (429/5xx/529, a connection that never opened) are retried
here, `max_retries` times, each announced (model/retry.py). A stream that breaks mid-reply is
retried as a whole request; nothing of the broken reply is returned. With this SDK a cut stream
surfaces either as `anthropic.APIConnectionError` or as a raw `httpx2` transport error.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import httpx2

from agent_cli import errors
from agent_cli.messages import Block, Message
from agent_cli.model import retry
from agent_cli.model.call_log import CallLog, CallRecord
from agent_cli.model.client import (
    Final,
    ModelReply,
    ModelRequest,
    Restart,
    Retry,
    StreamEvent,
    TextChunk,
)
from agent_cli.model.credentials import require_credentials
from agent_cli.model.usage import Usage
from agent_cli.settings import Settings

EPHEMERAL = {"type": "ephemeral"}
_BROKEN_STREAM = (anthropic.APIConnectionError, httpx2.TransportError, httpx2.StreamError)


def _with_breakpoint(block: Block) -> Block:
    return {**block, "cache_control": EPHEMERAL}


def build_params(request: ModelRequest) -> dict[str, Any]:
    """The wire request: breakpoints on tools, system and the newest stored block; the
    request-only guidance goes after the breakpoint so the cached prefix stays reusable."""
    system = [dict(b) for b in request.system]
    if system:
        system[-1] = _with_breakpoint(system[-1])
    messages: list[Message] = [dict(m) for m in request.messages]
    if messages:
        last = copy.deepcopy(messages[-1])
        content = last["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if blocks:
            blocks[-1] = _with_breakpoint(blocks[-1])
        last["content"] = [*blocks, *request.guidance]
        messages[-1] = last
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": messages,
    }
    if system:
        params["system"] = system
    if request.tools:
        tools = [dict(t) for t in request.tools]
        tools[-1] = _with_breakpoint(tools[-1])
        params["tools"] = tools
    return params


def to_blocks(message: Any) -> list[Block]:
    """SDK content blocks -> plain JSON the API accepts again (thinking keeps its signature)."""
    blocks: list[Block] = []
    for block in message.content:
        kind = block.type
        if kind == "text":
            blocks.append({"type": "text", "text": block.text})
        elif kind == "tool_use":
            blocks.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            )
        elif kind == "thinking":
            blocks.append(
                {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
            )
        elif kind == "redacted_thinking":
            blocks.append({"type": "redacted_thinking", "data": block.data})
        else:
            blocks.append(block.model_dump(mode="json", exclude_none=True))
    return [b for b in blocks if not (b["type"] == "text" and not b["text"].strip())]


def to_usage(usage: Any) -> Usage:
    return Usage(
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cache_read_input_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
        cache_creation_input_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0,
    )


def map_status_error(e: anthropic.APIStatusError) -> errors.AgentError:
    text = e.api_message or str(e)
    if e.status_code in (400, 413) and "prompt is too long" in text.lower():
        return errors.PromptTooLongError(f"The prompt is too long for the model: {text}")
    if e.status_code == 529 or e.type == "overloaded_error":
        return errors.OverloadedError(f"The model is overloaded (529) after retries: {text}")
    if e.status_code in (401, 403):
        return errors.CredentialsError(f"The API refused the credentials ({e.status_code}): {text}")
    return errors.ModelError(f"API error {e.status_code}: {text}")


def _retry_after(e: anthropic.APIStatusError) -> str | None:
    headers = e.response.headers
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return str(float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    return str(value) if value is not None else None


class AnthropicClient:
    def __init__(self, settings: Settings, call_log: CallLog | None = None) -> None:
        require_credentials()
        self._settings = settings
        self._log = call_log
        self._client = anthropic.AsyncAnthropic(  # retried here, visibly: model/retry.py
            max_retries=0, timeout=settings.request_timeout_s
        )
        self.endpoint_host = self._client.base_url.host

    async def close(self) -> None:
        await self._client.close()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        params = build_params(request)
        breaks = retries = 0
        record: CallRecord | None = None  # one line per call, its retries included (SPEC §13)
        while True:
            record = record or CallRecord.begin(request.model, self.endpoint_host, request.caller)
            opened = False  # the response's headers came: a failure after this broke a reply
            try:
                async with self._client.messages.stream(**params) as stream:
                    opened = True
                    async for event in stream:
                        if event.type == "content_block_delta" and event.delta.type == "text_delta":
                            yield TextChunk(event.delta.text)
                    message = await stream.get_final_message()
            except anthropic.APIStatusError as e:
                if opened or retries >= self._settings.max_retries or not retry.retryable_status(e):
                    self._finish(record, error=f"{e.status_code} {e.type}")
                    raise map_status_error(e) from e
                retries += 1
                pause = self._retry(retry.status_reason(e), retries, _retry_after(e))
                yield pause
                await asyncio.sleep(pause.delay_s)
                continue
            except _BROKEN_STREAM as e:
                if not opened:
                    if retries >= self._settings.max_retries:
                        self._finish(record, error=f"unreachable: {type(e).__name__}")
                        raise self._unreachable(e, retries + 1) from e
                    retries += 1
                    pause = self._retry(retry.connection_cause(e), retries, None)
                    yield pause
                    await asyncio.sleep(pause.delay_s)
                    continue
                self._finish(record, error=f"stream broken: {type(e).__name__}")
                record = None
                breaks += 1
                if breaks > self._settings.stream_retries:
                    raise errors.StreamBrokenError(
                        f"The connection to the model broke {breaks} times: {e}"
                    ) from e
                yield Restart(attempt=breaks, reason=f"{type(e).__name__}: {e}")
                continue
            reply = ModelReply(
                content=to_blocks(message),
                stop_reason=message.stop_reason,
                usage=to_usage(message.usage),
                model=message.model,
            )
            self._finish(record, usage=reply.usage, stop_reason=reply.stop_reason)
            yield Final(reply)
            return

    def _retry(self, reason: str, attempt: int, retry_after: str | None) -> Retry:
        wait = retry.delay_s(attempt, retry_after)
        return Retry(reason, wait, attempt, self._settings.max_retries)

    def _unreachable(self, e: BaseException, attempts: int) -> errors.ConnectionFailedError:
        endpoint = str(self._client.base_url).rstrip("/")
        cause = retry.connection_cause(e)
        return errors.ConnectionFailedError(retry.connection_message(endpoint, cause, attempts))

    def _finish(
        self,
        record: CallRecord,
        usage: Usage | None = None,
        stop_reason: str | None = None,
        error: str | None = None,
    ) -> None:
        record.end(usage=usage, stop_reason=stop_reason, error=error)
        if self._log is not None:
            self._log.write(record)
