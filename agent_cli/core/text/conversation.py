"""A conversation as plain quoted text, for the helper calls that read one: the summariser
(context step 4) and the episode writer. One layout; each reader chooses how much of a block
and of the whole it keeps. Thinking is the model's scratch work and never part of it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.core.messages import Block, Message, blocks_of


@dataclass(frozen=True)
class Clips:
    """How many characters are kept: of a text block (None: all), of a tool call's input, of
    a tool result, and of the whole (its head share from the start, the rest from the end)."""

    text: int | None
    tool_input: int
    tool_result: int
    total: int
    head_share: float


def clip(text: str, limit: int | None) -> str:
    text = text.strip()
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} chars cut]"


def _result_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", f"[{b.get('type')}]")) for b in content if isinstance(b, dict)
        )
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def _search_results(content: Any) -> str:
    found = [f"{r.get('title')} <{r.get('url')}>" for r in content if isinstance(r, dict)]
    return "\n".join(found)


def render_block(role: str, block: Block, clips: Clips) -> str:
    kind = block.get("type")
    if kind == "text":
        return f"[{role}] {clip(str(block.get('text', '')), clips.text)}"
    if kind in ("tool_use", "server_tool_use"):
        args = json.dumps(block.get("input"), ensure_ascii=False)
        server = "server " if kind == "server_tool_use" else ""
        return f"[{server}tool call {block.get('name')}] {clip(args, clips.tool_input)}"
    if kind == "tool_result":
        flag = " (error)" if block.get("is_error") else ""
        text = clip(_result_text(block.get("content")), clips.tool_result)
        return f"[tool result{flag}] {text}"
    if kind == "web_search_tool_result" and isinstance(block.get("content"), list):
        found = clip(_search_results(block["content"]), clips.tool_result)
        return f"[web search results]\n{found}"
    if kind in ("thinking", "redacted_thinking"):
        return ""
    return f"[{kind} block]"


def render_conversation(messages: Sequence[Message], clips: Clips) -> str:
    """Every block as a line (or a few); when the whole is over `clips.total`, its start and
    its newest part are kept with the size of what was left out between them."""
    lines = [
        line
        for message in messages
        for block in blocks_of(message)
        if (line := render_block(str(message.get("role", "?")), block, clips))
    ]
    text = "\n".join(lines)
    if len(text) <= clips.total:
        return text
    head = int(clips.total * clips.head_share)
    tail = clips.total - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[… {cut} characters of the conversation left out …]\n{text[-tail:]}"
