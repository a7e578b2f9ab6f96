"""Tool names the API accepts: `mcp__<server>__<tool>`, `^[a-zA-Z0-9_-]{1,64}$`, unique."""

from __future__ import annotations

import hashlib
import re

MAX = 64
PREFIX = "mcp__"
UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def clean(part: str) -> str:
    return UNSAFE.sub("_", part) or "_"


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """`mcp__server__tool`, shortened (with a digest of the original, so distinct long names stay
    distinct) and numbered on a collision; the name is added to `taken`."""
    name = f"{PREFIX}{clean(server)}__{clean(tool)}"
    if len(name) > MAX:
        digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
        name = f"{name[: MAX - 9]}_{digest}"
    base, n = name, 2
    while name in taken:
        suffix = f"_{n}"
        name = f"{base[: MAX - len(suffix)]}{suffix}"
        n += 1
    taken.add(name)
    return name


def prompt_command(server: str, prompt: str) -> str:
    return f"/{PREFIX}{clean(server)}__{clean(prompt)}"
