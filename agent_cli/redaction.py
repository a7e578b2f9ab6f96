"""Secrets: which environment variables hold them, and the one way they are masked everywhere
(tool results, display diffs, logs, episode input, subagent logs)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
MASK = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values would mask ordinary words


def secrets_from_env() -> tuple[str, ...]:
    return tuple(v for n in CREDENTIAL_VARS if (v := os.environ.get(n)))


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(secret, MASK)
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
