"""The shape of a Messages API request, and the rules of SPEC §16 that every request satisfies.

History is plain JSON shaped like the SDK's ``MessageParam`` TypedDicts (ARCHITECTURE habit 8), so
the aliases below are plain dicts. ``validate_request`` checks a request body exactly as it goes on
the wire; the fake model server runs it on every request a test sends, and the loop may run it
before sending.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from agent_cli.core.image_rules import check_images

Message = dict[str, Any]
"""One entry of ``messages``: ``{"role": "user" | "assistant", "content": str | list[Block]}``."""

Block = dict[str, Any]
"""One content block: ``{"type": "text", "text": ...}``, ``tool_use``, ``tool_result``, ..."""

MAX_CACHE_BREAKPOINTS = 4
TOOL_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def validate_request(body: dict[str, Any]) -> list[str]:
    """Return the §16 violations of a Messages API request body; an empty list means valid."""
    from agent_cli.core.thinking_rules import check_thinking  # only a request checked needs it

    problems: list[str] = []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        problems.append("messages must be a non-empty list")
        messages = []
    problems += _check_roles_and_content(messages)
    problems += _check_tool_pairing(messages)
    problems += _check_server_blocks(messages)
    problems += _check_tools(body.get("tools"))
    problems += _check_cache_breakpoints(body, messages)
    problems += _check_final_assistant(messages)
    problems += check_thinking(body, messages)
    problems += check_images(messages)
    return problems


def blocks_of(message: Message) -> list[Block]:
    """The content of a message as a list of blocks (a string content is one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _check_roles_and_content(messages: list[Any]) -> list[str]:
    problems: list[str] = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            problems.append(f"{where}: not an object")
            continue
        expected = "user" if i % 2 == 0 else "assistant"
        role = message.get("role")
        if role != expected:
            problems.append(f"{where}: role is {role!r}, expected {expected!r} (roles alternate)")
        content = message.get("content")
        if content == "" or content == []:
            problems.append(f"{where}: empty content")
        elif isinstance(content, str):
            if not content.strip():
                problems.append(f"{where}: whitespace-only text content")
        elif isinstance(content, list):
            problems += _check_blocks(content, where)
        else:
            problems.append(f"{where}: content must be a string or a list of blocks")
    return problems


def _check_blocks(content: list[Any], where: str) -> list[str]:
    problems: list[str] = []
    for j, block in enumerate(content):
        at = f"{where}.content[{j}]"
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            problems.append(f"{at}: not a block with a type")
            continue
        if block["type"] == "text" and not str(block.get("text", "")).strip():
            problems.append(f"{at}: empty or whitespace-only text block")
        if block["type"] == "tool_result" and isinstance(block.get("content"), list):
            for k, inner in enumerate(block["content"]):
                if (
                    isinstance(inner, dict)
                    and inner.get("type") == "text"
                    and not str(inner.get("text", "")).strip()
                ):
                    problems.append(f"{at}.content[{k}]: empty or whitespace-only text block")
    return problems


def _blocks_of_type(message: Any, kind: str) -> list[Block]:
    if not isinstance(message, dict):
        return []
    return [b for b in blocks_of(message) if b.get("type") == kind]


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def _check_tool_pairing(messages: list[Any]) -> list[str]:
    problems = _check_unique_tool_use_ids(messages)
    for i, message in enumerate(messages):
        if _role(message) == "user":
            previous = messages[i - 1] if i > 0 and _role(messages[i - 1]) == "assistant" else None
            problems += _check_results(message, previous, f"messages[{i}]")
        elif _role(message) == "assistant":
            following = messages[i + 1] if i + 1 < len(messages) else None
            answered = {
                str(b.get("tool_use_id")) for b in _blocks_of_type(following, "tool_result")
            }
            if _role(following) != "user":
                answered = set()
            for block in _blocks_of_type(message, "tool_use"):
                if str(block.get("id")) not in answered:
                    problems.append(
                        f"messages[{i}]: tool_use {block.get('id')!r} has no tool_result in the "
                        "next user message"
                    )
    return problems


def _check_unique_tool_use_ids(messages: list[Any]) -> list[str]:
    ids = Counter(str(b.get("id")) for m in messages for b in _blocks_of_type(m, "tool_use"))
    return [
        f"tool_use id {use_id!r} appears {count} times in the request"
        for use_id, count in ids.items()
        if count > 1
    ]


def _check_results(message: Message, previous: Any, where: str) -> list[str]:
    """Tool results of one user message: first in it, each answering the preceding assistant."""
    problems: list[str] = []
    seen_other = False
    for j, block in enumerate(blocks_of(message)):
        if block.get("type") != "tool_result":
            seen_other = True
        elif seen_other:
            problems.append(f"{where}.content[{j}]: tool_result after a non-tool_result block")
            break
    offered = {str(b.get("id")) for b in _blocks_of_type(previous, "tool_use")}
    results = Counter(str(b.get("tool_use_id")) for b in _blocks_of_type(message, "tool_result"))
    for result_id, count in results.items():
        if count > 1:
            problems.append(f"{where}: duplicate tool_result for id {result_id!r} ({count}x)")
        if result_id not in offered:
            problems.append(
                f"{where}: tool_result {result_id!r} has no tool_use in the preceding "
                "assistant message"
            )
    return problems


def _check_tools(tools: Any) -> list[str]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        return ["tools must be a list"]
    problems: list[str] = []
    names = Counter(str(t.get("name")) for t in tools if isinstance(t, dict))
    problems += [f"tool name {n!r} appears {c} times" for n, c in names.items() if c > 1]
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            problems.append(f"tools[{i}]: not an object")
            continue
        name: Any = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
            problems.append(f"tools[{i}]: name {name!r} does not match {TOOL_NAME_RE.pattern}")
        if tool.get("type", "custom") != "custom":
            problems += _check_server_tool(tool, f"tools[{i}]")
            continue  # a server tool (web search etc.) has no input_schema
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            problems.append(f"tools[{i}] ({name}): input_schema must be an object schema")
    return problems


SERVER_RESULTS = ("web_search_tool_result", "web_fetch_tool_result")
SERVER_TOOLS = {"web_search": "web_search_", "web_fetch": "web_fetch_"}


def _check_server_tool(tool: dict[str, Any], where: str) -> list[str]:
    kind, name = str(tool.get("type")), tool.get("name")
    prefix = SERVER_TOOLS.get(str(name))
    if prefix is None or not re.fullmatch(re.escape(prefix) + r"\d{8}", kind):
        return [f"{where}: unknown server tool type {kind!r} named {name!r}"]
    problems = []
    if tool.get("allowed_domains") and tool.get("blocked_domains"):
        problems.append(f"{where}: allowed_domains and blocked_domains cannot both be set")
    uses = tool.get("max_uses")
    if uses is not None and (not isinstance(uses, int) or uses < 1):
        problems.append(f"{where}: max_uses must be a positive integer")
    return problems


def _check_server_blocks(messages: list[Any]) -> list[str]:
    """Server tool calls and results live in assistant messages, each result right after its
    call in the same message; only the newest message may end with a call still running
    (a paused turn sent back). Citations are a list of typed objects."""
    problems: list[str] = []
    seen: set[str] = set()
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        open_calls: set[str] = set()
        for j, block in enumerate(blocks_of(message)):
            at = f"messages[{i}].content[{j}]"
            problems += _check_server_block(block, at, message.get("role"), seen, open_calls)
        if open_calls and i != len(messages) - 1:
            problems.append(f"messages[{i}]: server_tool_use {sorted(open_calls)} has no result")
    return problems


def _check_server_block(
    block: dict[str, Any], at: str, role: Any, seen: set[str], open_calls: set[str]
) -> list[str]:
    """One block's part of the rule: `seen` and `open_calls` carry the calls met so far."""
    kind = block.get("type")
    problems: list[str] = []
    if (kind == "server_tool_use" or kind in SERVER_RESULTS) and role != "assistant":
        problems.append(f"{at}: {kind} outside an assistant message")
    if kind == "server_tool_use":
        use_id = str(block.get("id"))
        if use_id in seen:
            problems.append(f"{at}: server_tool_use id {use_id!r} appears twice")
        seen.add(use_id)
        open_calls.add(use_id)
    elif kind in SERVER_RESULTS:
        if str(block.get("tool_use_id")) not in open_calls:
            problems.append(f"{at}: {kind} without its server_tool_use before it")
        open_calls.discard(str(block.get("tool_use_id")))
    elif kind == "text" and "citations" in block:
        problems += _check_citations(block["citations"], at)
    return problems


def _check_citations(citations: Any, at: str) -> list[str]:
    if citations is None:
        return []
    if not isinstance(citations, list) or not all(
        isinstance(c, dict) and isinstance(c.get("type"), str) for c in citations
    ):
        return [f"{at}: citations must be a list of objects with a type"]
    return []


def _count_cache_control(blocks: Any) -> int:
    if not isinstance(blocks, list):
        return 0
    count = 0
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("cache_control") is not None:
            count += 1
        if block.get("type") == "tool_result":
            count += _count_cache_control(block.get("content"))
    return count


def _check_cache_breakpoints(body: dict[str, Any], messages: list[Any]) -> list[str]:
    count = _count_cache_control(body.get("tools"))
    count += _count_cache_control(body.get("system"))
    for message in messages:
        if isinstance(message, dict):
            count += _count_cache_control(message.get("content"))
    if count > MAX_CACHE_BREAKPOINTS:
        return [f"{count} cache_control breakpoints, at most {MAX_CACHE_BREAKPOINTS} allowed"]
    return []


def _check_final_assistant(messages: list[Any]) -> list[str]:
    if not messages or not isinstance(messages[-1], dict):
        return []
    last = messages[-1]
    if last.get("role") != "assistant":
        return []
    blocks = blocks_of(last)
    if blocks and blocks[-1].get("type") == "text":
        text = str(blocks[-1].get("text", ""))
        if text != text.rstrip():
            return [f"messages[{len(messages) - 1}]: final assistant content ends with whitespace"]
    return []
