"""The only module that imports `anthropic`: streaming, retries, cache_control, error mapping.

The SDK retries 429/5xx/529 itself (`max_retries`). A stream that breaks mid-reply is retried
here as a whole request; nothing of the broken reply is returned. With this SDK a cut stream
surfaces either as `anthropic.APIConnectionError` or as a raw `httpx2` transport error.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import httpx2

from agent_cli import errors
from agent_cli.messages import Block, Message
from agent_cli.model.accumulate import ReplyBuilder
from agent_cli.model.call_log import CallLog, CallRecord
from agent_cli.model.client import Final, ModelReply, ModelRequest, Restart, StreamEvent, TextChunk
from agent_cli.model.credentials import require_credentials
from agent_cli.model.usage import Usage
from agent_cli.redaction import redact, redact_blocks, secrets_from_env
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


def map_status_error(e: anthropic.APIStatusError) -> errors.AgentError:
    text = e.api_message or str(e)
    if e.status_code in (400, 413) and "prompt is too long" in text.lower():
        return errors.PromptTooLongError(f"The prompt is too long for the model: {text}")
    if e.status_code == 529 or e.type == "overloaded_error":
        return errors.OverloadedError(f"The model is overloaded (529) after retries: {text}")
    if e.status_code in (401, 403):
        return errors.CredentialsError(f"The API refused the credentials ({e.status_code}): {text}")
    return errors.ModelError(f"API error {e.status_code}: {text}")


class AnthropicClient:
    def __init__(self, settings: Settings, call_log: CallLog | None = None) -> None:
        require_credentials()
        self._settings = settings
        # a key the model repeats (in its text or a tool's input) is masked before history
        self._secrets = secrets_from_env()
        self._log = call_log
        self._client = anthropic.AsyncAnthropic(
            max_retries=settings.max_retries, timeout=settings.request_timeout_s
        )
        self.endpoint_host = self._client.base_url.host

    async def close(self) -> None:
        await self._client.close()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        params = build_params(request)
        attempts = self._settings.stream_retries + 1
        for attempt in range(attempts):
            record = CallRecord.begin(request.model, self.endpoint_host, request.caller)
            builder = ReplyBuilder()
            try:
                # raw events: the SDK's accumulator would complete a truncated tool input
                events = await self._client.messages.create(**params, stream=True)
                async with events:
                    async for event in events:
                        if (text := builder.feed(event)) is not None:
                            yield TextChunk(redact(text, self._secrets))
            except anthropic.APIStatusError as e:
                self._finish(record, error=f"{e.status_code} {e.type}")
                raise map_status_error(e) from e
            except _BROKEN_STREAM as e:
                self._finish(record, error=f"stream broken: {type(e).__name__}")
                if attempt + 1 >= attempts:
                    raise errors.StreamBrokenError(
                        f"The connection to the model broke {attempts} times: {e}"
                    ) from e
                yield Restart(attempt=attempt + 1, reason=f"{type(e).__name__}: {e}")
                continue
            reply = ModelReply(
                content=redact_blocks(builder.content(), self._secrets),
                stop_reason=builder.stop_reason,
                usage=builder.usage_totals(),
                model=builder.model or request.model,
                not_run=builder.not_run,
            )
            self._finish(record, usage=reply.usage, stop_reason=reply.stop_reason)
            yield Final(reply)
            return

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
