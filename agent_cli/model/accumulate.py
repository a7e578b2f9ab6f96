"""A streamed reply put together from the API's raw events, as plain JSON blocks.

The SDK's own accumulator completes a tool call's JSON with a partial parser (a truncated
`{"path": "a.txt"` becomes a call that runs) and raises on invalid JSON, which ends the whole
run. Here each tool input is parsed strictly once its block is complete: invalid, truncated or
absurdly nested JSON leaves the call in history with an empty input and a reason, and the loop
answers it with an error result instead of running it. A `tool_use` id already used in the
reply is renamed (ids must be unique in every later request, SPEC §16) and not run either. A
call streamed with an empty or missing id (some Anthropic-compatible servers) gets one of ours:
its result must name it.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from agent_cli.core.messages import Block
from agent_cli.core.text.unicode_safe import safe_text, safe_value
from agent_cli.model.client import TextChunk, ThinkingChunk
from agent_cli.model.usage import Usage

_TOOL_TYPES = ("tool_use", "server_tool_use")
_ID = re.compile(r"^[a-zA-Z0-9_-]+$")  # what the API accepts as a tool_use id
_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def _plain(obj: Any) -> dict[str, Any]:
    """The fields the API sent, nulls included (server tool results go back exactly)."""
    data: dict[str, Any] = obj.to_dict(mode="json")
    return data


@dataclass
class ReplyBuilder:
    model: str = ""
    stop_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    # tool_use id -> why the call must not run (the loop answers it with this error)
    not_run: dict[str, str] = field(default_factory=dict)
    _json: dict[int, list[str]] = field(default_factory=dict)
    _ids: set[str] = field(default_factory=set)

    def feed(self, event: Any) -> TextChunk | ThinkingChunk | None:
        """Takes one raw stream event; returns the text or thinking to show, if it carries one."""
        kind = event.type
        if kind == "message_start":
            self.model = event.message.model
            self._take_usage(event.message.usage)
        elif kind == "content_block_start":
            self._start(event.index, _plain(event.content_block))
            if self.blocks[event.index].get("type") == "redacted_thinking":
                return ThinkingChunk("", redacted=True)
        elif kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif kind == "content_block_stop":
            self._stop(event.index)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self._take_usage(event.usage)
        return None

    def _take_usage(self, usage: Any) -> None:
        for name in _USAGE_FIELDS:
            value = getattr(usage, name, None)
            if value is not None:
                self.usage[name] = value
        searches = getattr(getattr(usage, "server_tool_use", None), "web_search_requests", None)
        if searches is not None:
            self.usage["web_search_requests"] = searches

    def _start(self, index: int, block: Block) -> None:
        while len(self.blocks) <= index:
            self.blocks.append({})
        kind = block.get("type")
        if kind == "text":
            block = {"type": "text", "text": block.get("text", "")}
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": "", "signature": ""}
        elif kind in _TOOL_TYPES:
            given = block.get("id")
            own = given if isinstance(given, str) and _ID.match(given) else _own_id(kind)
            block["id"] = self._unique(own, str(block.get("name")))
            self._json[index] = []
        self.blocks[index] = block

    def _unique(self, tool_id: str, name: str) -> str:
        unique, n = tool_id, 1
        while unique in self._ids:
            n += 1
            unique = f"{tool_id}_dup{n}"
        self._ids.add(unique)
        if unique != tool_id:
            self.not_run[unique] = (
                f"Not run: this {name} call reused the tool_use id {tool_id} of an earlier call "
                "in the same reply. Call it again if it is still needed."
            )
        return unique

    def _delta(self, index: int, delta: Any) -> TextChunk | ThinkingChunk | None:
        block = self.blocks[index]
        kind = delta.type
        if kind == "text_delta" and block.get("type") == "text":
            text = safe_text(delta.text)
            block["text"] += text
            return TextChunk(text)
        if kind == "thinking_delta" and block.get("type") == "thinking":
            # kept exactly as sent (its signature covers it); only what is shown is made safe
            block["thinking"] += delta.thinking
            return ThinkingChunk(safe_text(delta.thinking))
        if kind == "input_json_delta" and index in self._json:
            self._json[index].append(delta.partial_json)
        elif kind == "signature_delta":
            block["signature"] = delta.signature
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(_plain(delta.citation))
        return None

    def _stop(self, index: int) -> None:
        if index not in self._json:
            return
        block = self.blocks[index]
        raw = "".join(self._json.pop(index))
        block["input"] = {}
        if not raw.strip():
            return
        # a tool call's input, read once its block is complete: not before the first reply
        from agent_cli.core.text.lenient_json import loads_strict
        from agent_cli.core.text.lenient_values import json_in_string

        try:
            value = loads_strict(raw)
        except ValueError as e:
            self._refuse(block, f"its input is not valid JSON ({e})", raw)
            return
        if isinstance(value, str) and isinstance(json_in_string(value), dict):
            value = json_in_string(value)  # the object sent as one JSON string
        if not isinstance(value, dict):
            self._refuse(block, f"its input is a JSON {type(value).__name__}, not an object", raw)
            return
        block["input"] = safe_value(value)

    def _refuse(self, block: Block, why: str, raw: str) -> None:
        shown = raw if len(raw) <= 300 else raw[:300] + f"... [{len(raw) - 300:,} more chars]"
        self.not_run.setdefault(
            str(block["id"]),
            f"Not run: {why}: {shown}\nCall {block.get('name')} again with a complete JSON "
            "object as its input.",
        )

    def content(self) -> list[Block]:
        """The reply's blocks as the API accepts them again: whitespace-only text dropped, and
        thinking the stream cut before its signature came (the API refuses it unsigned)."""
        blocks = [b for b in self.blocks if b]
        for index in list(self._json):  # a block the stream never closed
            self._stop(index)
        return [b for b in blocks if _kept(b)]

    def usage_totals(self) -> Usage:
        names = (*_USAGE_FIELDS, "web_search_requests")
        return Usage(**{name: self.usage.get(name, 0) or 0 for name in names})


def _own_id(kind: str) -> str:
    prefix = "srvtoolu" if kind == "server_tool_use" else "toolu"
    return f"{prefix}_agent_{uuid.uuid4().hex[:24]}"


def _kept(block: Block) -> bool:
    if block["type"] == "text":
        return bool(block["text"].strip())
    if block["type"] == "thinking":
        return bool(block.get("signature"))
    return True
