"""`session/load`: a resumed session's conversation replayed to the editor as updates, as it
was shown live: the user's prompts, the replies, each tool call with its result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    UserMessageChunk,
)

from agent_cli.core.messages import blocks_of
from agent_cli.serve.acp_updates import KINDS, OUTPUT_CHARS, plan, title
from agent_cli.session.resume import Boundary, RestoredSession
from agent_cli.session.transcript import ShownRecord

Replayed = UserMessageChunk | AgentMessageChunk | ToolCallStart | ToolCallProgress | AgentPlanUpdate


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _user(message: dict[str, Any]) -> Iterator[Replayed]:
    for block in blocks_of(message):
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            yield helpers.update_user_message_text(str(block["text"]))
        elif kind == "tool_result":
            status: ToolCallStatus = "failed" if block.get("is_error") else "completed"
            text = helpers.text_block(_result_text(block)[:OUTPUT_CHARS])
            yield helpers.update_tool_call(
                str(block.get("tool_use_id")), status=status, content=[helpers.tool_content(text)]
            )


def _assistant(message: dict[str, Any], workspace: Path) -> Iterator[Replayed]:
    for block in blocks_of(message):
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            yield helpers.update_agent_message_text(str(block["text"]))
        elif kind == "tool_use":
            name, args = str(block.get("name")), dict(block.get("input") or {})
            raw = args.get("path")
            where = [] if not isinstance(raw, str) else [(workspace / raw).resolve()]
            yield helpers.start_tool_call(
                str(block.get("id")),
                title(name, args),
                kind=KINDS.get(name, "other"),
                status="completed",
                locations=[ToolCallLocation(path=str(p)) for p in where] or None,
                raw_input=args,
            )


def _shown(record: ShownRecord) -> Replayed | None:
    if record.kind == "steered":
        return helpers.update_user_message_text(record.text)
    if record.kind == "error":
        return helpers.update_agent_message_text(f"✗ {record.text}")
    if record.kind == "goal":
        return helpers.update_agent_message_text(f"◎ {record.text}")
    if record.kind in ("notice", "thought"):
        return None  # the message holds the notice; a thought's time is the terminal's
    status: ToolCallStatus = "failed" if record.is_error else "completed"
    return helpers.update_tool_call(record.id, title=record.text, status=status)


def replay(restored: RestoredSession, workspace: Path) -> Iterator[Replayed]:
    for item in restored.conversation():
        if isinstance(item, ShownRecord):  # what the screen showed: a call's own summary
            if (shown := _shown(item)) is not None:
                yield shown
        elif isinstance(item, Boundary):
            note = f"(earlier messages summarised: {item.replaced}, {item.stage})"
            yield helpers.update_agent_message_text(note)
        elif item["role"] == "user":
            yield from _user(item)
        else:
            yield from _assistant(item, workspace)
    if restored.todos:
        yield plan(restored.todos)
