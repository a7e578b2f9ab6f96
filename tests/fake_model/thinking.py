"""Thinking signatures as the API treats them: issued with a reply, checked when sent back.

The API signs each thinking block and refuses one whose text or signature changed. The fake
signs a block whose script gave no signature with ``sign(text)`` (checkable by any server, so a
session resumed against another fake still passes), and remembers every signature it sent with
the text it covered. A thinking block in a request must carry a signature issued for exactly
its text; a redacted block must carry data the fake sent.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

SIGNED = "sigfake_"
REDACTED = "rdxfake_"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def sign(thinking: str) -> str:
    return SIGNED + _digest(thinking)


def redacted_data(seed: str) -> str:
    payload = _digest(seed)
    return f"{REDACTED}{payload}_{_digest(payload)[:8]}"


def _valid_redacted(data: str) -> bool:
    payload, _, check = data.removeprefix(REDACTED).partition("_")
    return data.startswith(REDACTED) and check == _digest(payload)[:8]


class Signatures:
    def __init__(self) -> None:
        self._issued: dict[str, str] = {}  # signature -> the thinking text it covers
        self._data: set[str] = set()
        self._lock = threading.Lock()

    def issue(self, block: dict[str, Any]) -> None:
        """Complete a thinking or redacted block of a reply and remember what it carries."""
        if block.get("type") == "thinking":
            block.setdefault("signature", sign(str(block.get("thinking", ""))))
            with self._lock:
                self._issued[str(block["signature"])] = str(block.get("thinking", ""))
        elif block.get("type") == "redacted_thinking":
            block.setdefault("data", redacted_data(repr(sorted(block.items()))))
            with self._lock:
                self._data.add(str(block["data"]))

    def check(self, body: dict[str, Any]) -> list[str]:
        problems: list[str] = []
        for i, message in enumerate(body.get("messages") or []):
            content = message.get("content") if isinstance(message, dict) else None
            for j, block in enumerate(content if isinstance(content, list) else []):
                if isinstance(block, dict):
                    problems += self._check_block(block, f"messages[{i}].content[{j}]")
        return problems

    def _check_block(self, block: dict[str, Any], at: str) -> list[str]:
        kind = block.get("type")
        if kind == "thinking":
            text, signature = str(block.get("thinking")), str(block.get("signature"))
            with self._lock:
                issued = self._issued.get(signature)
            if issued != text and signature != sign(text):
                return [f"{at}: thinking block's signature does not match its text (altered?)"]
        elif kind == "redacted_thinking":
            data = str(block.get("data"))
            with self._lock:
                known = data in self._data
            if not known and not _valid_redacted(data):
                return [f"{at}: redacted_thinking data was not issued by the model (altered?)"]
        return []
