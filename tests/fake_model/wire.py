"""The Messages API wire format: a reply as a Message object, and as the SSE event sequence.

Streaming sequence, as the real API sends it:
message_start (empty content, usage) -> ping -> per block: content_block_start, deltas,
content_block_stop -> message_delta (stop_reason, usage) -> message_stop.
Text arrives in several text_delta chunks; tool_use starts with ``input: {}`` and its JSON arrives
in several input_json_delta chunks (an input given as a string is sent verbatim, so a
script can send JSON a model got wrong); thinking arrives in as many thinking_delta chunks as
text does, then one signature_delta. Server tools: server_tool_use streams like tool_use
(input_json_delta), a web_search_tool_result arrives whole, and a text block with citations
starts without them and gets each one as a citations_delta before its text.
"""

from __future__ import annotations

import json
from typing import Any

CHUNKS = 3


def split(text: str, parts: int = CHUNKS) -> list[str]:
    """``text`` in up to ``parts`` non-empty pieces (none for an empty text)."""
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


def message_object(
    message_id: str,
    model: str,
    blocks: list[dict[str, Any]],
    stop_reason: str,
    usage: dict[str, int],
) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def error_object(error_type: str, message: str, request_id: str) -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }


def stream_events(message: dict[str, Any], chunks: int = CHUNKS) -> list[dict[str, Any]]:
    """The SSE events (as JSON payloads; each has its event name in ``type``) for a message."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(message["content"]):
        events += _block_events(index, block, chunks)
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": usage,
        }
    )
    events.append({"type": "message_stop"})
    return events


def _block_events(index: int, block: dict[str, Any], chunks: int) -> list[dict[str, Any]]:
    kind = block.get("type")
    deltas: list[dict[str, Any]]
    if kind == "text" and not block.get("citations"):
        start = {**block, "text": ""}
        deltas = [{"type": "text_delta", "text": t} for t in split(block["text"], chunks)]
    elif kind == "text" and block.get("citations"):
        start = {k: v for k, v in block.items() if k != "citations"} | {"text": ""}
        deltas = [{"type": "citations_delta", "citation": c} for c in block["citations"]]
        deltas += [{"type": "text_delta", "text": t} for t in split(block["text"], chunks)]
    elif kind in ("tool_use", "server_tool_use"):
        start = {**block, "input": {}}
        given = block["input"]  # a string is sent as it is: a model's invalid or truncated JSON
        raw = given if isinstance(given, str) else json.dumps(given) if given else ""
        pieces = split(raw) or [""]
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
    elif kind == "thinking":
        start = {**block, "thinking": "", "signature": ""}
        deltas = [
            {"type": "thinking_delta", "thinking": t} for t in split(block["thinking"], chunks)
        ]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    else:  # redacted_thinking and others arrive whole
        start, deltas = block, []
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def server_tool_usage(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """``usage.server_tool_use`` as the API reports it: the server tool calls of the reply."""
    names = [b.get("name") for b in blocks if b.get("type") == "server_tool_use"]
    if not names:
        return {}
    counts = {
        "web_search_requests": names.count("web_search"),
        "web_fetch_requests": names.count("web_fetch"),
    }
    return {"server_tool_use": counts}


def model_info(model: str, web_search: bool) -> dict[str, Any]:
    """GET /v1/models/{id}: the fields the agent reads, in the API's shape."""
    return {
        "type": "model",
        "id": model,
        "display_name": model,
        "created_at": "2026-01-01T00:00:00Z",
        "lifecycle": "active",
        "capabilities": {
            "server_tools": {
                "supported": web_search,
                "web_search": {"supported": web_search},
                "code_execution": {"supported": False},
            }
        },
    }
