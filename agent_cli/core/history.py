"""Plain-JSON history helpers: tool pairing, interrupted results, repair before a request; and
an answer about a request's parts kept while they are the very same objects (`SameItems`: tool
schemas and system blocks are never changed in place, stages build copies)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from agent_cli.core.markers import ATTACHED as ATTACHED
from agent_cli.core.markers import INTERRUPTED as INTERRUPTED
from agent_cli.core.markers import SHELL_HEAD as SHELL_HEAD
from agent_cli.core.markers import USER_INTERRUPTED as USER_INTERRUPTED
from agent_cli.core.messages import Block, Message
from agent_cli.core.messages import blocks_of as blocks_of  # one implementation, re-exported


def tool_uses(message: Message) -> list[Block]:
    if message.get("role") != "assistant":
        return []
    return [b for b in blocks_of(message) if b.get("type") == "tool_use"]


def result_ids(message: Message) -> set[str]:
    if message.get("role") != "user":
        return set()
    return {b["tool_use_id"] for b in blocks_of(message) if b.get("type") == "tool_result"}


def tool_result_block(
    tool_use_id: str, content: str, is_error: bool = False, extra: list[Block] | None = None
) -> Block:
    """`extra` blocks (images) follow the text, which then becomes a text block."""
    text = content if content.strip() else "(no output)"
    block: Block = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [{"type": "text", "text": text}, *extra] if extra else text,
    }
    if is_error:
        block["is_error"] = True
    return block


def user_text(text: str) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def _merge_same_role(messages: list[Message]) -> list[Message]:
    out: list[Message] = []
    for message in messages:
        if out and out[-1]["role"] == message["role"]:
            merged = {**out[-1], "content": blocks_of(out[-1]) + blocks_of(message)}
            out[-1] = _results_first(merged)
        else:
            out.append(message)
    return out


def _with_blocks(message: Message, blocks: list[Block]) -> Message:
    """`message` itself when `blocks` are its very blocks (the transcript refers to messages
    it already holds by identity), else a copy holding them."""
    content = message.get("content")
    unchanged = isinstance(content, list) and len(content) == len(blocks)
    if unchanged and all(a is b for a, b in zip(content or [], blocks, strict=True)):
        return message
    return {**message, "content": blocks}


def _results_first(message: Message) -> Message:
    blocks = blocks_of(message)
    results = [b for b in blocks if b.get("type") == "tool_result"]
    if not results:
        return message
    rest = [b for b in blocks if b.get("type") != "tool_result"]
    return _with_blocks(message, results + rest)


def repair(messages: list[Message]) -> list[Message]:
    """Make a history sendable: every tool_use answered by the next user message (missing ones
    get an "interrupted" error result), no orphan results, no empty or blank text blocks, no
    server tool call left without its result by an interrupted pause_turn, same-role
    neighbours merged, starting with a user message."""
    cleaned: list[Message] = []
    for message in messages:
        blocks = [b for b in _closed_server_calls(blocks_of(message)) if not _blank_text(b)]
        if blocks:
            cleaned.append(_with_blocks(message, blocks))
    cleaned = _merge_same_role(cleaned)
    while cleaned and cleaned[0]["role"] != "user":
        cleaned.pop(0)
    out: list[Message] = []
    for i, message in enumerate(cleaned):
        if message["role"] == "user":
            prev_ids = {b["id"] for b in tool_uses(out[-1])} if out else set()
            blocks = [
                b
                for b in blocks_of(message)
                if b.get("type") != "tool_result" or b.get("tool_use_id") in prev_ids
            ]
            if not blocks:
                blocks = [{"type": "text", "text": "(continue)"}]
            message = _with_blocks(message, blocks)
        out.append(message)
        uses = tool_uses(message)
        if uses:
            nxt = cleaned[i + 1] if i + 1 < len(cleaned) else None
            missing = [u for u in uses if nxt is None or u["id"] not in result_ids(nxt)]
            if missing and nxt is None:
                out.append(interrupted_results(missing))
            elif missing and nxt is not None:
                fill = [tool_result_block(u["id"], INTERRUPTED, True) for u in missing]
                cleaned[i + 1] = {**nxt, "content": fill + blocks_of(nxt)}
    return _merge_same_role([_results_first(m) for m in out])


def interrupted_results(uses: list[Block], done: dict[str, Block] | None = None) -> Message:
    done = done or {}
    return {
        "role": "user",
        "content": [
            done.get(u["id"]) or tool_result_block(u["id"], INTERRUPTED, True) for u in uses
        ],
    }


def _closed_server_calls(blocks: list[Block]) -> list[Block]:
    answered = {
        b.get("tool_use_id")
        for b in blocks
        if str(b.get("type", "")).endswith("_tool_result") and b.get("type") != "tool_result"
    }
    return [b for b in blocks if b.get("type") != "server_tool_use" or b.get("id") in answered]


def _blank_text(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and not str(block.get("text", "")).strip()
    )


def last_assistant_text(messages: list[Message]) -> str:
    for message in reversed(messages):
        if message.get("role") == "assistant":
            text = "".join(b.get("text", "") for b in blocks_of(message) if b.get("type") == "text")
            if text.strip():
                return text
    return ""


def interrupted_reply(partial: str) -> list[Message]:
    """What a stopped reply leaves in history: its streamed text (if any) as the assistant's, then
    the user's marker, so the model knows it was cut and the next prompt is not merged into the
    unanswered one (repair merges the marker with whatever user message comes next)."""
    marker = user_text(USER_INTERRUPTED)
    if not partial.strip():
        return [marker]
    return [{"role": "assistant", "content": [{"type": "text", "text": partial}]}, marker]


T = TypeVar("T")


class SameItems(Generic[T]):
    """`of(items)`: `work(items)` again only when `items` holds other objects than last time."""

    def __init__(self, work: Callable[[Sequence[Any]], T]) -> None:
        self.work = work
        self._held: list[object] = []  # holding them keeps their ids from being reused
        self._answer: tuple[T] | None = None

    def of(self, items: Sequence[Any]) -> T:
        held = self._held
        same = len(held) == len(items) and all(map(operator.is_, held, items))
        if self._answer is None or not same:
            self._held, self._answer = list(items), (self.work(items),)
        return self._answer[0]
