"""`agent run --input-format stream-json`: user messages as JSON lines on stdin, the shape
Claude Code's stream-json uses (`{"type": "user", "message": {"role": "user", "content": ...}}`),
each answered in turn in one session until stdin ends."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_cli.core.errors import UsageError
from agent_cli.core.messages import Block


class TextBlock(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["text"]
    text: str


class ImageSource(BaseModel):
    type: Literal["base64"]
    media_type: Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
    data: str = Field(min_length=1)


class ImageBlock(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["image"]
    source: ImageSource


ContentBlock = Annotated[TextBlock | ImageBlock, Field(discriminator="type")]


class UserContent(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["user"]
    content: str | list[ContentBlock] = Field(min_length=1)


class UserLine(BaseModel):
    """One line of stdin. Fields Claude Code adds (session_id, parent_tool_use_id) are ignored:
    every message goes to this process's one session."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["user"]
    message: UserContent

    def prompt(self) -> tuple[str, list[Block] | None]:
        """The text the turn is recorded under, and the blocks the model is sent (None: the
        text alone)."""
        content = self.message.content
        if isinstance(content, str):
            return content, None
        text = "\n".join(b.text for b in content if isinstance(b, TextBlock))
        return text, [b.model_dump(mode="json") for b in content]


def parse_line(number: int, raw: bytes) -> UserLine | None:
    """A user message, None for a blank line; UsageError naming the line otherwise."""
    if not raw.strip():
        return None
    try:
        line = UserLine.model_validate_json(raw)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "line"
        raise UsageError(
            f"--input-format stream-json: stdin line {number}: {where}: {first['msg']}"
        ) from None
    if not line.prompt()[0].strip() and line.prompt()[1] is None:
        raise UsageError(f"--input-format stream-json: stdin line {number}: the message is empty")
    return line


async def user_messages() -> AsyncIterator[tuple[str, list[Block] | None]]:
    """The messages as they arrive. A daemon thread reads stdin (a pipe, a file or a
    terminal alike), so a run that ends while stdin stays open is not held by it."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[bytes | None] = asyncio.Queue()

    def read() -> None:
        try:
            for raw in sys.stdin.buffer:
                loop.call_soon_threadsafe(lines.put_nowait, raw)
        except (OSError, ValueError):  # a closed stdin ends the input as EOF does
            pass
        loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=read, name="stdin-lines", daemon=True).start()
    number, seen = 0, 0
    while (raw := await lines.get()) is not None:
        number += 1
        line = parse_line(number, raw)
        if line is not None:
            seen += 1
            yield line.prompt()
    if not seen:
        raise UsageError("--input-format stream-json: stdin held no user message")


def check_flags(output_format: str, prompt: str | None, json_schema: Any) -> None:
    if output_format != "stream-json":
        raise UsageError("--input-format stream-json needs --output-format stream-json")
    if prompt is not None:
        raise UsageError("--input-format stream-json reads its prompts from stdin: drop -p")
    if json_schema is not None:
        raise UsageError("--json-schema cannot be used with --input-format stream-json")
