"""An MCP tool result as the model reads it: text in `content`, images as image blocks.

Works on the result's JSON form (`model_dump(by_alias=True)`), so it needs no `mcp` import.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from agent_cli.core.tool_contract import ToolResult

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def to_tool_result(result: dict[str, Any], label: str) -> ToolResult:
    texts: list[str] = []
    blocks: list[dict[str, Any]] = []
    for item in result.get("content") or []:
        text, block = _item(item if isinstance(item, dict) else {})
        if text:
            texts.append(text)
        if block is not None:
            blocks.append(block)
    structured = result.get("structuredContent")
    if not texts and structured is not None:
        texts.append(json.dumps(structured, ensure_ascii=False, indent=2))
    is_error = bool(result.get("isError"))
    content = "\n".join(texts) or ("(no output)" if not blocks else f"[{len(blocks)} image(s)]")
    state = "error" if is_error else "ok"
    return ToolResult(content, is_error=is_error, summary=f"{label}: {state}", blocks=blocks)


def _item(item: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    kind = item.get("type")
    if kind == "text":
        return str(item.get("text", "")), None
    if kind == "image":
        return _image(item.get("data"), item.get("mimeType"), "image")
    if kind == "resource":
        return _resource(item.get("resource") or {})
    if kind == "resource_link":
        name = item.get("name") or item.get("uri")
        description = f": {item['description']}" if item.get("description") else ""
        return f"[resource link {name} <{item.get('uri')}>{description}]", None
    if kind == "audio":
        return f"[audio ({item.get('mimeType', 'unknown type')}) omitted: not supported]", None
    return f"[unsupported content of type {kind!r} omitted]", None


def _image(data: Any, mime: Any, what: str) -> tuple[str, dict[str, Any] | None]:
    if mime not in IMAGE_TYPES or not isinstance(data, str):
        return f"[{what} of type {mime} omitted: the model reads png, jpeg, gif, webp]", None
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"[{what} omitted: its data is not valid base64]", None
    source = {"type": "base64", "media_type": mime, "data": data}
    return "", {"type": "image", "source": source}


def _resource(resource: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    uri = resource.get("uri", "?")
    if "text" in resource:
        return f"[resource {uri}]\n{resource['text']}", None
    mime = resource.get("mimeType")
    if mime in IMAGE_TYPES:
        return _image(resource.get("blob"), mime, f"resource {uri}")
    size = len(str(resource.get("blob", ""))) * 3 // 4
    return f"[binary resource {uri} ({mime or 'unknown type'}, about {size:,} bytes) omitted]", None
