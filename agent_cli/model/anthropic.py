"""The only module that imports `anthropic`: streaming, retries, cache_control, error mapping.

Requests that fail before a reply opens (429/5xx/529, a connection that never opened) are retried
here, `max_retries` times, each announced (model/retry.py). A stream that breaks mid-reply is
retried as a whole request; nothing of the broken reply is returned. With this SDK a cut stream
surfaces either as `anthropic.APIConnectionError` or as a raw `httpx2` transport error. A stream
silent for `stream_idle_timeout_s` (httpx's read timeout, the gap between two bytes: the SDK's
own bound, set below) is abandoned and asked again as a retry, before or inside the reply.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any

import anthropic
import httpx2

from agent_cli.core import errors
from agent_cli.core.messages import Block
from agent_cli.core.settings.schema import Settings
from agent_cli.core.text.redaction import redact, redact_blocks, secrets_from_env
from agent_cli.model import retry
from agent_cli.model.accumulate import ReplyBuilder
from agent_cli.model.call_log import CallLog, CallRecord
from agent_cli.model.calls import ttl_seconds
from agent_cli.model.client import (
    Final,
    ModelReply,
    ModelRequest,
    Notice,
    Restart,
    Retry,
    ServerToolCall,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
)
from agent_cli.model.credentials import require_credentials
from agent_cli.model.endpoint import EndpointGaps
from agent_cli.model.fingerprint import fingerprint
from agent_cli.model.server_tools import (
    any_server_tool,
    is_server_result,
    is_server_tool,
    markers,
    sources,
)
from agent_cli.model.usage import Usage
from agent_cli.model.wire_params import build_params

log = logging.getLogger(__name__)
_BUSY = frozenset({408, 429, 500, 502, 503, 504, 529})
_BROKEN_STREAM = (anthropic.APIConnectionError, httpx2.TransportError, httpx2.StreamError)


@dataclasses.dataclass
class _Tries:
    """One call's attempts: its log record (one line with its retries, SPEC §13), whether the
    response's headers came (a failure after that broke a reply), retries and stream breaks."""

    record: CallRecord | None = None
    opened: bool = False
    retries: int = 0
    breaks: int = 0


def _redacted(shown: TextChunk | ThinkingChunk, secrets: tuple[str, ...]) -> StreamEvent:
    """What the user sees is masked; a thinking block itself goes back exactly (its signature)."""
    return dataclasses.replace(shown, text=redact(shown.text, secrets))


def map_status_error(e: anthropic.APIStatusError) -> errors.AgentError:
    text = e.api_message or str(e)
    if e.status_code in (400, 413) and "prompt is too long" in text.lower():
        return errors.PromptTooLongError(f"The prompt is too long for the model: {text}")
    if e.status_code == 429:
        return errors.ModelError(f"Rate limited (429) after retries: {text}")
    if e.status_code == 529 or e.type == "overloaded_error":
        return errors.OverloadedError(f"The model is overloaded (529) after retries: {text}")
    if e.status_code in (401, 403):
        return errors.CredentialsError(f"The API refused the credentials ({e.status_code}): {text}")
    return errors.ModelError(f"API error {e.status_code}: {text}")


def _finished_block(blocks: list[Block], block: Block) -> list[StreamEvent]:
    """A cited text block gets its source numbers; a server tool result shows with its call."""
    if block.get("type") == "text":
        mark = markers(block, sources(blocks))
        return [TextChunk(mark)] if mark else []
    if is_server_result(block):
        use = next((b for b in blocks if b.get("id") == block.get("tool_use_id")), None)
        return [ServerToolCall(use, block)] if use is not None else []
    return []


_TRUST: dict[tuple[str, ...], ssl.SSLContext] = {}
_TRUST_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR")  # what httpcore2 reads


def trust_store() -> ssl.SSLContext:
    """The SDK's default TLS context (httpx2's, honouring SSL_CERT_FILE and the like), made once
    per process and set of those variables: loading the certificates takes 25 ms, which every
    child of the warm process would otherwise pay again (the warm-up makes it)."""
    key = tuple(os.environ.get(name, "") for name in _TRUST_ENV)
    if key not in _TRUST:
        _TRUST[key] = httpx2.create_ssl_context()
    return _TRUST[key]


class AnthropicClient:
    def __init__(
        self,
        settings: Settings,
        call_log: CallLog | None = None,
        on_sent: Callable[[], None] | None = None,
        sdk: anthropic.AsyncAnthropic | None = None,
    ) -> None:
        """`sdk`: another platform's client of the SDK (Bedrock's, Vertex AI's: they share its
        messages API); None: Anthropic's, with ANTHROPIC_API_KEY and the like."""
        if sdk is None:
            require_credentials()
        self._settings = settings
        self._on_sent = on_sent  # told once each request is on the wire (its answer has begun)
        # a key the model repeats (in its text or a tool's input) is masked before history
        self._secrets = secrets_from_env()
        self._log = call_log
        if call_log is not None:
            ttl = ttl_seconds(getattr(settings, "cache_ttl", None))
            call_log.calls.ttl_s = lambda agent: ttl
        self._client = sdk or anthropic.AsyncAnthropic(  # retried here, visibly: model/retry.py
            max_retries=0,
            timeout=httpx2.Timeout(settings.request_timeout_s, read=settings.stream_idle_timeout_s),
            http_client=anthropic.DefaultAsyncHttpxClient(verify=trust_store()),
        )
        self.endpoint_host = self._client.base_url.host
        self._gaps = EndpointGaps(self.endpoint_host)
        self._web_search: dict[str, bool] = {}  # model -> does the endpoint offer web search
        self._told: set[str] = set()  # models the user was told search is not offered for

    async def close(self) -> None:
        await self._client.close()

    async def offers_web_search(self, model: str) -> bool:
        """Asked once per model (GET /v1/models/{id}); an endpoint without the models API or
        without the capability offers none: search is then not declared, never faked."""
        if model in self._web_search:
            return self._web_search[model]
        try:
            info = await self._client.models.retrieve(model)
        except anthropic.APIError as e:
            transient = not isinstance(e, anthropic.APIStatusError) or e.status_code in _BUSY
            log.info("models API of %s: %s", self.endpoint_host, e)
            if transient:  # no answer yet: not offered to this request, asked again next time
                return False
            offered = False  # no models API, or no such model: an answer
        else:
            caps = info.capabilities
            offered = bool(caps and caps.server_tools.web_search.supported)
        self._web_search[model] = offered
        log.info("web search offered by %s for %s: %s", self.endpoint_host, model, offered)
        return offered

    async def _offered(self, request: ModelRequest) -> ModelRequest:
        if not any_server_tool(request.tools):
            return request
        if await self.offers_web_search(request.model):
            return request
        tools = [t for t in request.tools if not is_server_tool(t)]
        return dataclasses.replace(request, tools=tools)

    def _search_notice(self, request: ModelRequest, offered: ModelRequest) -> list[Notice]:
        if offered is request or request.model in self._told:
            return []
        self._told.add(request.model)
        return [
            Notice(
                f"web.search is on, but {self.endpoint_host} offers no web search for "
                f"{request.model}: search is not offered."
            )
        ]

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        offered = await self._offered(request)
        for notice in self._search_notice(request, offered):
            yield notice
        offered = self._gaps.fitted(offered)
        params = build_params(offered)
        tries = _Tries()
        parts = fingerprint(request) if self._log is not None else None
        while True:
            if tries.record is None:
                tries.record = CallRecord.begin(request.model, self.endpoint_host, request.caller)
                tries.record.fingerprint = parts
            builder = ReplyBuilder()
            tries.opened = False
            try:
                async for item in self._events(params, builder, tries):
                    yield item
            except anthropic.APIStatusError as e:
                if (told := self._gaps.refused_thinking(e, offered)) is not None:
                    yield Notice(told)
                    offered = self._gaps.fitted(offered)
                    params = build_params(offered)
                    continue
                pause = self._after_status_error(e, tries)
                yield pause
                await asyncio.sleep(pause.delay_s)
                continue
            except _BROKEN_STREAM as e:
                again = self._after_broken_stream(e, tries)
                yield again
                if isinstance(again, Retry):
                    await asyncio.sleep(again.delay_s)
                continue
            reply = self._reply(builder, request.model, request.cache_ttl)
            self._finish(tries.record, usage=reply.usage, stop_reason=reply.stop_reason)
            yield Final(reply)
            return

    def _reply(self, builder: ReplyBuilder, model: str, cache_ttl: str = "5m") -> ModelReply:
        usage = builder.usage_totals()
        if cache_ttl == "1h":  # every breakpoint of the request carries it: so do its writes
            usage.cache_creation_1h_input_tokens = usage.cache_creation_input_tokens
        return ModelReply(
            content=redact_blocks(builder.content(), self._secrets),
            stop_reason=builder.stop_reason,
            usage=usage,
            model=builder.model or model,
            not_run=builder.not_run,
        )

    async def _events(
        self, params: dict[str, Any], builder: ReplyBuilder, tries: _Tries
    ) -> AsyncIterator[StreamEvent]:
        """One attempt's stream, shown as it comes and built into the reply."""
        # raw events: the SDK's accumulator would complete a truncated tool input
        events = await self._client.messages.create(**params, stream=True)
        tries.opened = True
        if self._on_sent is not None:
            self._on_sent()
        async with events:
            async for event in events:
                if (shown := builder.feed(event)) is not None:
                    yield _redacted(shown, self._secrets)
                elif event.type == "content_block_stop":
                    finished = builder.blocks[event.index]
                    for item in _finished_block(builder.blocks, finished):
                        yield item

    def _after_status_error(self, e: anthropic.APIStatusError, tries: _Tries) -> Retry:
        """The pause before trying again, or the error when that is not allowed."""
        assert tries.record is not None
        if (
            tries.opened
            or tries.retries >= self._settings.max_retries
            or not retry.retryable_status(e)
        ):
            self._finish(tries.record, error=f"{e.status_code} {e.type}")
            raise map_status_error(e) from e
        asked = self._client._parse_retry_after_header(e.response.headers)  # the SDK's reading
        wait = retry.delay_s(tries.retries + 1, asked)
        if wait > self._settings.max_retry_wait_s:
            self._finish(tries.record, error=f"{e.status_code} {e.type}: asked to wait {wait:g} s")
            why = retry.too_long(retry.status_reason(e), wait, self._settings.max_retry_wait_s)
            raise errors.ModelError(why) from e
        tries.retries += 1
        return Retry(retry.status_reason(e), wait, tries.retries, self._settings.max_retries)

    def _after_broken_stream(self, e: Exception, tries: _Tries) -> Retry | Restart:
        """Unreached: retried like a status error. Broken mid-reply: restarted, as a new call,
        up to `stream_retries` times."""
        assert tries.record is not None
        if retry.silent(e):
            return self._after_silence(e, tries)
        if not tries.opened:
            if tries.retries >= self._settings.max_retries:
                self._finish(tries.record, error=f"unreachable: {type(e).__name__}")
                raise self._unreachable(e, tries.retries + 1) from e
            tries.retries += 1
            return self._retry(retry.connection_cause(e), tries.retries)
        self._finish(tries.record, error=f"stream broken: {type(e).__name__}")
        tries.record = None
        tries.breaks += 1
        if tries.breaks > self._settings.stream_retries:
            raise errors.StreamBrokenError(
                f"The connection to the model broke {tries.breaks} times: {e}"
            ) from e
        return Restart(attempt=tries.breaks, reason=f"{type(e).__name__}: {e}")

    def _after_silence(self, e: Exception, tries: _Tries) -> Retry:
        """Nothing came for `stream_idle_timeout_s`: what came of the reply is dropped (a new
        builder) and the request is asked again at once, as one of `max_retries`."""
        assert tries.record is not None
        idle = self._settings.stream_idle_timeout_s
        if tries.retries >= self._settings.max_retries:
            self._finish(tries.record, error=f"stream silent for {idle:g} s")
            raise errors.StreamBrokenError(
                f"The model's stream was silent for {idle:g} s, {tries.retries + 1} times "
                f"(stream_idle_timeout_s; {retry.HINT})."
            ) from e
        if tries.opened:  # that reply is over: its record ends, the next attempt has its own
            self._finish(tries.record, error=f"stream silent for {idle:g} s")
            tries.record = None
        tries.retries += 1
        return Retry(
            f"stream silent for {idle:g} s", 0.0, tries.retries, self._settings.max_retries
        )

    def _retry(self, reason: str, attempt: int) -> Retry:
        return Retry(reason, retry.delay_s(attempt, None), attempt, self._settings.max_retries)

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
        if usage is not None:
            prices = self._settings.prices
            record.cost_usd = usage.cost(
                prices.get(record.model) or prices.get(self._settings.model)
            )
        if self._log is not None:
            self._log.write(record)
