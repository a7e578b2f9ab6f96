"""A session's conversation as a document (/export): Markdown to read, or JSON to process.

Everything the transcript recorded is exported, what compactions took out of the live context
included; a compaction is a marked line in Markdown and a `compaction` entry in JSON. Thinking
is left out of the Markdown (it is the model's scratch work) and kept, as sent, in the JSON.
What the screen showed beside the messages is exported as it was shown: a failed turn's error
and a goal's check where they happened, and a text the agent gave the model as the user's (a
job's end, a goal's feedback) as the agent's, never under "You"."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from agent_cli.core.messages import Block, Message, blocks_of
from agent_cli.session.resume import Boundary
from agent_cli.session.transcript import ShownRecord, now_iso

ExportFormat = Literal["markdown", "json"]
Entry = Message | Boundary | ShownRecord
EXPORTED_SHOWN = ("notice", "error", "goal")  # the rest is in the messages already


@dataclass(frozen=True)
class ExportHeader:
    id: str
    title: str
    model: str
    workspace: str


def as_json(header: ExportHeader, conversation: list[Entry]) -> str:
    entries: list[dict[str, Any]] = []
    for entry in conversation:
        if isinstance(entry, Boundary):
            entries.append({"type": "compaction", "stage": entry.stage, "replaced": entry.replaced})
        elif isinstance(entry, ShownRecord):
            if entry.kind in EXPORTED_SHOWN:
                entries.append({"type": entry.kind, "text": entry.text, "failed": entry.is_error})
        elif isinstance(entry, dict):
            entries.append({"type": "message", "role": entry["role"], "content": entry["content"]})
    document = {
        "session": header.id,
        "title": header.title,
        "model": header.model,
        "workspace": header.workspace,
        "exported": now_iso(),
        "conversation": entries,
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def as_markdown(header: ExportHeader, conversation: list[Entry]) -> str:
    lines = [f"# {header.title or 'Session ' + header.id}", ""]
    lines += [f"- session: `{header.id}`", f"- model: `{header.model}`"]
    lines += [f"- workspace: `{header.workspace}`", f"- exported: {now_iso()}", ""]
    notices = [e.text for e in conversation if isinstance(e, ShownRecord) and e.kind == "notice"]
    for entry in conversation:
        if isinstance(entry, Boundary):
            lines += [f"---\n*(compacted: {entry.replaced} earlier messages, {entry.stage})*", ""]
        elif isinstance(entry, ShownRecord) and entry.kind in ("error", "goal"):
            label = "turn failed" if entry.kind == "error" else "goal check"
            lines += [f"*({label}: {entry.text})*", ""]
        elif isinstance(entry, dict):
            lines += _message(entry, notices)
    return "\n".join(lines).rstrip("\n") + "\n"


def _message(message: Message, notices: list[str]) -> list[str]:
    """A message's blocks; in a user message, the agent's own texts quoted as the agent's."""
    parts, typed = [], False
    for block in blocks_of(message):
        text = _block(block)
        if message["role"] == "user" and block.get("type") == "text" and text in notices:
            notices.remove(text)
            parts.append(_quoted("*The agent to the model:*\n\n" + text))
        elif text:
            parts.append(text)
            typed = typed or block.get("type") != "tool_result"
    if not parts:
        return []
    heading = "" if not typed else ("## You" if message["role"] == "user" else "## Agent")
    return ([heading, ""] if heading else []) + [part + "\n" for part in parts]


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _block(block: Block) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        call = json.dumps(block.get("input"), ensure_ascii=False, indent=2)
        return f"**{block.get('name')}**\n\n{_fence(call, 'json')}"
    if kind == "tool_result":
        flag = " (error)" if block.get("is_error") else ""
        return f"*result{flag}:*\n\n{_fence(_result_text(block.get('content')))}"
    if kind == "image":
        return "*[an image]*"
    return ""  # thinking, redacted thinking, server tool blocks


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(b.get("text", "")) if b.get("type") == "text" else f"[{b.get('type')}]"
            for b in content
            if isinstance(b, dict)
        ]
        return "\n".join(texts)
    return ""


def _fence(text: str, language: str = "") -> str:
    """A code fence longer than any run of backticks inside (so the text cannot close it)."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"
