"""Token estimates and a deterministic prompt-cache simulation.

Tokens are estimated as characters of JSON / 4. The request is flattened into segments in the order
the API caches them (tools, system, then every message block); a segment carrying cache_control is
a breakpoint. A request reads from cache the longest prefix (ending at any segment up to its last
breakpoint) that an earlier request wrote, i.e. that ended at one of that request's breakpoints;
the rest up to its own last breakpoint is cache creation; everything else is plain input. The
cache_control markers themselves are not part of the cached content. No minimum cacheable length.
A written prefix expires `ttl_s` after it was last written or read, by `clock` (injectable: a
test moves time instead of sleeping).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any


def estimate_tokens(value: Any) -> int:
    return max(1, len(json.dumps(value, separators=(",", ":"))) // 4)


def _segments(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """(JSON without cache_control, is a breakpoint) per cacheable segment, in cache order."""
    items: list[Any] = []
    tools = body.get("tools")
    if isinstance(tools, list):
        items += tools
    system = body.get("system")
    if isinstance(system, str) and system:
        items.append({"type": "text", "text": system})
    elif isinstance(system, list):
        items += system
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks if isinstance(blocks, list) else []:
            items.append({"role": message.get("role"), "block": block})
    out: list[tuple[str, bool]] = []
    for item in items:
        inner = item.get("block", item) if isinstance(item, dict) else item
        breakpoint_ = isinstance(inner, dict) and inner.get("cache_control") is not None
        out.append((json.dumps(_strip(item), sort_keys=True), breakpoint_))
    return out


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


class PromptCache:
    """Remembers the prefixes written by earlier requests; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, ttl_s: float = 300.0) -> None:
        self.clock = clock
        self.ttl_s = ttl_s  # the API's default, 5 minutes
        self._written: dict[str, float] = {}  # prefix key -> when last written or read
        self._lock = threading.Lock()

    def usage_for(self, body: dict[str, Any]) -> dict[str, int]:
        """input_tokens / cache_read_input_tokens / cache_creation_input_tokens for a request."""
        total = estimate_tokens(body)
        segments = _segments(body)
        digest = hashlib.sha256(str(body.get("model")).encode())
        keys: list[str] = []
        sizes: list[int] = []
        size = 0
        for text, _ in segments:
            digest.update(text.encode())
            keys.append(digest.copy().hexdigest())
            size += len(text)
            sizes.append(size // 4)
        breakpoints = [i for i, (_, is_bp) in enumerate(segments) if is_bp]
        read = creation = 0
        if breakpoints:
            last = breakpoints[-1]
            with self._lock:
                now = self.clock()
                hits = [i for i in range(last + 1) if self._fresh(keys[i], now)]
                self._written.update((keys[i], now) for i in hits)  # a read refreshes the TTL
                self._written.update((keys[i], now) for i in breakpoints)
            read = sizes[hits[-1]] if hits else 0
            creation = sizes[last] - read
        read, creation = min(read, total), min(creation, max(0, total - read))
        return {
            "input_tokens": max(0, total - read - creation),
            "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read,
        }

    def _fresh(self, key: str, now: float) -> bool:
        at = self._written.get(key)
        return at is not None and now - at <= self.ttl_s
