"""The wire request of one `ModelRequest`: the Messages API's parameters, with the prompt
cache's breakpoints placed where the reusable prefix ends."""

from __future__ import annotations

from typing import Any

from agent_cli.core.messages import Block, Message
from agent_cli.model.client import ModelRequest

EPHEMERAL = {"type": "ephemeral"}
INTERLEAVED_THINKING = "interleaved-thinking-2025-05-14"


def _with_breakpoint(block: Block, ttl: str = "5m") -> Block:
    # "5m" is the API's default: left unsaid, so default requests stay as they were
    control = EPHEMERAL if ttl == "5m" else {**EPHEMERAL, "ttl": ttl}
    return {**block, "cache_control": control}


def build_params(request: ModelRequest) -> dict[str, Any]:
    """The wire request: breakpoints on tools, system and the newest stored block; the
    request-only guidance goes after the breakpoint so the cached prefix stays reusable."""
    # lists of the same blocks and messages: only the last of each is replaced (by a copy with
    # its breakpoint); the SDK copies what it sends, so copying every message here was waste
    system = list(request.system)
    if system:
        system[-1] = _with_breakpoint(system[-1], request.cache_ttl)
    messages: list[Message] = list(request.messages)
    if messages:
        last = dict(messages[-1])  # its own dict and block list; the blocks kept are not changed
        content = last["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else [*content]
        if blocks:
            blocks[-1] = _with_breakpoint(blocks[-1], request.cache_ttl)
        guidance = request.guidance if last["role"] == "user" else []
        last["content"] = [*blocks, *guidance]
        messages[-1] = last
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": messages,
    }
    if system:
        params["system"] = system
    if request.tools:
        tools = list(request.tools)
        tools[-1] = _with_breakpoint(tools[-1], request.cache_ttl)
        params["tools"] = tools
        if request.tool_choice is not None:
            params["tool_choice"] = request.tool_choice
    if request.thinking_budget is not None:
        params["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
        if request.interleaved_thinking:  # thinking between tool calls, not only before them
            params["extra_headers"] = {"anthropic-beta": INTERLEAVED_THINKING}
    return params
