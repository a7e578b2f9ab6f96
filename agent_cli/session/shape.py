"""The shape a recorded message must have for the loop to rely on it; a line that breaks it is
skipped like a broken line. Plain Python, so the session listing checks lines as resume does
without loading pydantic."""

from __future__ import annotations

from typing import Any

# the `type` of every record a transcript holds (session/transcript.py's Record union)
RECORD_TYPES = frozenset(
    {
        *("session", "message", "todos", "note", "compaction"),
        *("usage", "call", "episode", "shown", "title", "auto_verdict"),
    }
)
REQUIRED = {"text": "text", "tool_use": "id", "tool_result": "tool_use_id"}


def _checked_block(block: Any) -> None:
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        raise ValueError("a content block must be an object with a string type")
    required = REQUIRED.get(block["type"])
    if required and not isinstance(block.get(required), str):
        raise ValueError(f"a {block['type']} block needs a string {required}")


def checked_message(message: Any) -> Any:
    """`message` itself when it has the shape; ValueError naming what is wrong otherwise."""
    if not isinstance(message, dict):
        raise ValueError("a message must be an object")
    if message.get("role") not in ("user", "assistant"):
        raise ValueError("role must be user or assistant")
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            _checked_block(block)
    elif not isinstance(content, str):
        raise ValueError("content must be a string or a list of blocks")
    return message
