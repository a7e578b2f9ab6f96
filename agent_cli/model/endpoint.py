"""What an endpoint that is not Anthropic's refuses, learned once per model and kept for the
session (the client's life): Ollama, llama.cpp's server, vLLM, LM Studio and gateways speak the
Messages API but some refuse `thinking` with a 400. The request is then sent again without it,
and every later one for that model goes without it; the user is told once. (What they lack
otherwise needs no memory here: the models API's 404 is the web-search answer, see
`AnthropicClient.offers_web_search`; token counts are estimated locally; missing usage fields
count as zeros, see accumulate.py.)
"""

from __future__ import annotations

import dataclasses

import anthropic

from agent_cli.model.client import ModelRequest


class EndpointGaps:
    def __init__(self, host: str) -> None:
        self.host = host
        self._no_thinking: set[str] = set()  # models this endpoint refused thinking for

    def fitted(self, request: ModelRequest) -> ModelRequest:
        """The request as this endpoint accepts it: without thinking where it was refused."""
        if request.thinking_budget is not None and request.model in self._no_thinking:
            return dataclasses.replace(request, thinking_budget=None)
        return request

    def refused_thinking(self, e: anthropic.APIStatusError, request: ModelRequest) -> str | None:
        """When this error is the endpoint refusing `thinking`: remembers it, returns the notice."""
        if request.thinking_budget is None or e.status_code != 400:
            return None
        text = e.api_message or str(e)
        # a thinking block's signature refused is about the history, not about the parameter
        if "thinking" not in text.lower() or "signature" in text.lower():
            return None
        self._no_thinking.add(request.model)
        return (
            f"{self.host} refuses extended thinking for {request.model} ({text[:160]}): "
            "thinking is off for the rest of this session."
        )
