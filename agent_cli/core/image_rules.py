"""The rules of SPEC §16 for image blocks, as the Messages API enforces them: an image sits in
a user message or a tool result; a base64 source names one of four media types, and its data
decodes to at most 5 MB of an image of that type (its first bytes say which)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

MEDIA_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
MAX_BASE64_CHARS = 5 * 1024 * 1024


def check_images(messages: list[Any]) -> list[str]:
    problems: list[str] = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            continue
        for j, block in enumerate(message["content"]):
            at = f"messages[{i}].content[{j}]"
            for k, image in _images(block):
                where = at if k is None else f"{at}.content[{k}]"
                if message.get("role") != "user":
                    problems.append(f"{where}: an image outside a user message")
                problems += _check_source(image.get("source"), where)
    return problems


def _images(block: Any) -> list[tuple[int | None, dict[str, Any]]]:
    if not isinstance(block, dict):
        return []
    if block.get("type") == "image":
        return [(None, block)]
    inner = block.get("content") if block.get("type") == "tool_result" else None
    if not isinstance(inner, list):
        return []
    return [(k, b) for k, b in enumerate(inner) if isinstance(b, dict) and b.get("type") == "image"]


def _check_source(source: Any, at: str) -> list[str]:
    if not isinstance(source, dict):
        return [f"{at}: image without a source"]
    if source.get("type") == "url":
        return [] if isinstance(source.get("url"), str) else [f"{at}: image url missing"]
    if source.get("type") != "base64":
        return [f"{at}: image source type {source.get('type')!r} is not base64 or url"]
    media, data = source.get("media_type"), source.get("data")
    if media not in MEDIA_MAGIC:
        return [f"{at}: image media_type {media!r} is not one of {sorted(MEDIA_MAGIC)}"]
    if not isinstance(data, str) or not data:
        return [f"{at}: image without data"]
    if len(data) > MAX_BASE64_CHARS:
        return [f"{at}: image data is {len(data):,} base64 characters, over 5 MB"]
    try:
        head = base64.b64decode(data[:64], validate=True)
    except (binascii.Error, ValueError):
        return [f"{at}: image data is not valid base64"]
    if not head.startswith(MEDIA_MAGIC[media]):
        return [f"{at}: image data is not a {media} image (its first bytes say otherwise)"]
    return []


TOKENS_PER_PIXEL = 1 / 750  # how the API counts an image it reads
UNSIZED_TOKENS = 1_600  # an image whose header is not read here (JPEG, WebP): ~1.2 megapixels


def image_tokens(block: dict[str, Any]) -> int:
    """The tokens of the model's view of one image block: width x height / 750 (PNG and GIF
    sizes from their header), never the characters of its base64."""
    source = block.get("source")
    data = source.get("data") if isinstance(source, dict) else None
    try:
        head = base64.b64decode(data[:48], validate=True) if isinstance(data, str) else b""
    except (binascii.Error, ValueError):
        head = b""
    if head.startswith(b"\x89PNG") and len(head) >= 24:
        width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    elif head.startswith(b"GIF") and len(head) >= 10:
        width, height = int.from_bytes(head[6:8], "little"), int.from_bytes(head[8:10], "little")
    else:
        return UNSIZED_TOKENS
    return max(1, round(width * height * TOKENS_PER_PIXEL))


def without_images(value: Any) -> tuple[Any, int]:
    """`value` with every image block's data left out, and the tokens those images count."""
    if isinstance(value, list):
        pairs = [without_images(v) for v in value]
        return [p[0] for p in pairs], sum(p[1] for p in pairs)
    if not isinstance(value, dict):
        return value, 0
    if value.get("type") == "image":
        return {"type": "image"}, image_tokens(value)
    if not isinstance(value.get("content"), list):  # a message or a tool result holds blocks
        return value, 0
    content, tokens = without_images(value["content"])
    return {**value, "content": content}, tokens
