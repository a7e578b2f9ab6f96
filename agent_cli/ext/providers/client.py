"""The model client for Bedrock, Vertex AI or Foundry: the spine's Anthropic client (its
streaming, retries, call log) around the SDK's own client for that platform, with the model
named as the platform names it and what the platform lacks left out of the request."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import cast

from agent_cli.core.settings.schema import Settings
from agent_cli.ext.providers.platforms import Platform
from agent_cli.model.call_log import CallLog
from agent_cli.model.client import ModelClient, ModelRequest, Notice, StreamEvent
from agent_cli.model.server_tools import is_server_tool


class PlatformClient:
    def __init__(self, platform: Platform, inner: ModelClient) -> None:
        self.platform, self._inner = platform, inner
        self._told = False

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        tools = [t for t in request.tools if not is_server_tool(t)]
        if len(tools) < len(request.tools) and not self._told:
            self._told = True  # the SDK's platform clients have no models API to ask
            yield Notice(f"web.search is on, but {self.platform.name} offers no web search here.")
        wire = dataclasses.replace(request, model=self.platform.wire_id(request.model), tools=tools)
        async for event in self._inner.stream(wire):
            yield event

    async def close(self) -> None:
        await self._inner.close()


def made(
    platform: Platform,
    settings: Settings,
    call_log: CallLog | None,
    on_sent: Callable[[], None] | None,
) -> ModelClient:
    import anthropic

    from agent_cli.model.anthropic import AnthropicClient, trust_store

    http = anthropic.DefaultAsyncHttpxClient(verify=trust_store())
    # Bedrock's and Vertex AI's clients are not AsyncAnthropic, but offer the same
    # `messages.create`, all the Anthropic client asks of them once server tools are out
    sdk = cast("anthropic.AsyncAnthropic", platform.sdk(settings, http))
    return PlatformClient(platform, AnthropicClient(settings, call_log, on_sent, sdk=sdk))
