"""What an Anthropic-compatible server that is not Anthropic's lacks or refuses, for
``FakeAnthropic.endpoint``. ``OLLAMA_LIKE`` is the sum of what Ollama's, llama.cpp's and vLLM's
Messages APIs are documented to lack: no ``count_tokens`` (404), no models API (the server's
default: ``web_search_supported=None`` answers GET /v1/models/{id} with 404), usage without the
cache fields, ``thinking`` refused with a 400, and tool calls streamed without an id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

THINKING_REFUSED = "thinking: Extra inputs are not permitted"
CACHE_FIELDS = ("cache_read_input_tokens", "cache_creation_input_tokens")


@dataclass(frozen=True)
class Endpoint:
    count_tokens: bool = True  # False: POST /v1/messages/count_tokens answers 404
    cache_usage: bool = True  # False: usage carries no cache_* fields
    thinking: bool = True  # False: a request with `thinking` gets a 400 (THINKING_REFUSED)
    tool_ids: bool = True  # False: tool_use blocks stream with an empty id, then none at all

    def usage(self, usage: dict[str, Any]) -> dict[str, Any]:
        if self.cache_usage:
            return usage
        return {k: v for k, v in usage.items() if k not in CACHE_FIELDS}


ANTHROPIC = Endpoint()
OLLAMA_LIKE = Endpoint(count_tokens=False, cache_usage=False, thinking=False, tool_ids=False)
