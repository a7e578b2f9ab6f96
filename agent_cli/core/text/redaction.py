"""Secrets: which environment variables hold them, and the one way they are masked everywhere
(tool results, display diffs, logs, episode input, subagent logs, the model's own replies).

A key is masked in the forms a command or a model turns it into on the way out, not only as
itself: reversed, rot13, hex, and base64 (standard and URL-safe, at each of the three byte
alignments it can have inside longer data). Text that arrives in pieces (a streamed reply) is
masked as a whole by `stream_redaction.StreamRedactor`.
"""

from __future__ import annotations

import base64
import codecs
import os
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
MASK = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values would mask ordinary words


def secrets_from_env() -> tuple[str, ...]:
    return tuple(v for n in CREDENTIAL_VARS if (v := os.environ.get(n)))


@lru_cache(maxsize=16)
def variants(secret: str) -> tuple[str, ...]:
    """`secret` and the encodings of it that a leak would carry, longest first."""
    raw = secret.encode("utf-8")
    found = {secret, secret[::-1], codecs.encode(secret, "rot13"), raw.hex(), raw.hex().upper()}
    for shift in range(3):
        # the characters that depend on the secret's bytes alone, wherever it starts
        start, end = -(-shift * 4 // 3), (shift + len(raw)) * 4 // 3
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(b"\0" * shift + raw + b"\0\0").decode("ascii")
            found.add(text[start + 1 if shift else start : end])
    usable = (v for v in found if len(v) >= MIN_SECRET_CHARS)
    return tuple(sorted(usable, key=len, reverse=True))


def forms(secrets: Iterable[str]) -> tuple[str, ...]:
    """Every form of every secret long enough to mask, in the order `redact` masks them."""
    return _forms(secrets if isinstance(secrets, tuple) else tuple(secrets))


@lru_cache(maxsize=16)
def _forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    # a run's secrets are one tuple: every log line and streamed text redacted asks again
    return tuple(f for s in secrets if s and len(s) >= MIN_SECRET_CHARS for f in variants(s))


def redact(text: str, secrets: Iterable[str]) -> str:
    for form in forms(secrets):
        if form in text:
            text = text.replace(form, MASK)
    return text


def redact_value(value: Any, secrets: tuple[str, ...]) -> Any:
    """Every string inside `value` (dicts, lists, pydantic models) redacted; other values
    unchanged."""
    if isinstance(value, BaseModel):
        return type(value).model_validate(redact_value(value.model_dump(), secrets))
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: redact_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v, secrets) for v in value]
    return value


def redact_blocks(blocks: list[dict[str, Any]], secrets: tuple[str, ...]) -> list[dict[str, Any]]:
    """A model reply's blocks with every secret masked in text and tool input. Thinking blocks
    are left alone: their signature covers their exact text."""
    if not secrets:
        return blocks
    return [
        b if b.get("type") in ("thinking", "redacted_thinking") else redact_value(b, secrets)
        for b in blocks
    ]
