"""notes/<id>.log: a subagent's whole process as readable text, written as it happens.

Every request (the messages new since the previous one), every reply and every tool result goes
in, whole; secrets are redacted. `LoggedClient` wraps the parent's model client so the log sees
exactly what was sent and received, including a request that failed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from agent_cli.core.files.paths import make_dirs
from agent_cli.core.history import blocks_of
from agent_cli.core.messages import Block, Message
from agent_cli.model.client import Final, ModelClient, ModelReply, ModelRequest, StreamEvent


def _block_text(block: Block) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        args = json.dumps(block.get("input"), ensure_ascii=False)
        return f"[tool_use {block.get('name')} {block.get('id')}] {args}"
    if kind == "tool_result":
        content: Any = block.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        flag = " error" if block.get("is_error") else ""
        return f"[tool_result{flag} {block.get('tool_use_id')}]\n{text}"
    if kind == "thinking":
        return f"[thinking]\n{block.get('thinking', '')}"
    return f"[{kind}] {json.dumps(block, ensure_ascii=False)}"


def message_text(message: Message) -> str:
    body = "\n".join(_block_text(b) for b in blocks_of(message))
    return f"<{message.get('role')}>\n{body}\n"


class ProcessLog:
    def __init__(self, path: Path, redact: Callable[[str], str]) -> None:
        self.path = path
        self._redact = redact
        self._requests = 0
        self._written = 0  # messages of the conversation already in the log
        make_dirs(path.parent)
        path.write_text("", encoding="utf-8")

    def write(self, text: str) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(self._redact(text))

    def section(self, title: str, body: str = "") -> None:
        text = f"\n===== {title}\n{body}"
        self.write(text if text.endswith("\n") else text + "\n")

    def messages(self, messages: list[Message]) -> None:
        """The part of the conversation not yet logged (tool results, a follow-up prompt)."""
        if len(messages) < self._written:  # the history was rewritten: log it whole again
            self._written = 0
        for message in messages[self._written :]:
            self.write(message_text(message))
        self._written = len(messages)

    def request(self, request: ModelRequest) -> int:
        self._requests += 1
        tools = ", ".join(str(t.get("name")) for t in request.tools) or "none"
        self.section(f"request {self._requests} ({len(request.messages)} messages; tools: {tools})")
        self.messages(request.messages)
        for block in request.guidance:
            self.write(f"[request-only guidance] {_block_text(block)}\n")
        return self._requests

    def reply(self, number: int, reply: ModelReply) -> None:
        usage = reply.usage
        self.section(
            f"reply {number} (stop_reason {reply.stop_reason}; {usage.context_tokens} in, "
            f"{usage.output_tokens} out tokens)",
            message_text({"role": "assistant", "content": reply.content}),
        )
        if reply.content:
            self._written += 1  # the loop appends it to the history as it is

    def failure(self, number: int, error: BaseException) -> None:
        self.section(f"request {number} failed", f"{type(error).__name__}: {error}")


class LoggedClient:
    """The parent's client, every call of the subagent logged; closing is the parent's job."""

    def __init__(self, inner: ModelClient, log: ProcessLog) -> None:
        self._inner = inner
        self._log = log

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        number = self._log.request(request)
        try:
            async for event in self._inner.stream(request):
                if isinstance(event, Final):
                    self._log.reply(number, event.reply)
                yield event
        except BaseException as e:
            self._log.failure(number, e)
            raise

    async def close(self) -> None:
        return None
