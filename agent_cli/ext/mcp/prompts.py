"""A server's prompts as slash commands and its resources as `@server:uri` attachments: the
text each turns into (no UI here; the REPL calls these)."""

from __future__ import annotations

import re
from typing import Any

from agent_cli.ext.mcp.manager import McpManager
from agent_cli.ext.mcp.names import prompt_command

MENTION = re.compile(r"(?<!\S)@([A-Za-z0-9_.-]+):(\S+)")
MAX_RESOURCE_CHARS = 50_000


def prompt_commands(manager: McpManager | None) -> dict[str, tuple[str, dict[str, Any]]]:
    """`/mcp__server__prompt` -> (server, the prompt's JSON form)."""
    if manager is None:
        return {}
    return {prompt_command(server, p["name"]): (server, p) for server, p in manager.prompts()}


def prompt_arguments(prompt: dict[str, Any], text: str) -> dict[str, str]:
    """`key=value` pairs, or the words in the prompt's argument order (the last one takes the
    rest of the line)."""
    names = [str(a["name"]) for a in prompt.get("arguments") or []]
    words = text.split()
    if words and all("=" in w for w in words):
        return dict(w.split("=", 1) for w in words)
    values: dict[str, str] = {}
    for i, name in enumerate(names):
        if i >= len(words):
            break
        values[name] = " ".join(words[i:]) if i == len(names) - 1 else words[i]
    missing = [
        str(a["name"])
        for a in prompt.get("arguments") or []
        if a.get("required") and a["name"] not in values
    ]
    if missing:
        raise ValueError(f"missing argument(s): {', '.join(missing)}")
    return values


async def expand_prompt(manager: McpManager, server: str, prompt: dict[str, Any], text: str) -> str:
    arguments = prompt_arguments(prompt, text)
    connection = await manager.running(server)
    result = await connection.get_prompt(str(prompt["name"]), arguments)
    parts = []
    for message in result.get("messages") or []:
        content = message.get("content") or {}
        if content.get("type") == "text":
            parts.append(str(content.get("text", "")))
        elif content.get("type") == "resource":
            parts.append(str((content.get("resource") or {}).get("text", "")))
    return "\n\n".join(p for p in parts if p.strip())


def resource_mentions(manager: McpManager | None) -> list[str]:
    """`server:uri` of every listed resource, for completion after `@`."""
    if manager is None:
        return []
    return [f"{server}:{r['uri']}" for server, r in manager.resources()]


async def attach_resources(manager: McpManager | None, text: str) -> str:
    """The text with every `@server:uri` of a configured server's resource appended as a
    block the model can read; a resource that cannot be read is named, not silently dropped."""
    if manager is None:
        return text
    attached = []
    for server, uri in MENTION.findall(text):
        if server not in manager.entries:
            continue
        try:
            connection = await manager.running(server)
            result = await connection.read_resource(uri)
        except Exception as e:
            attached.append(
                f'<resource server="{server}" uri="{uri}">could not be read: {e}</resource>'
            )
            continue
        body = "\n".join(
            str(c.get("text", f"[binary content, {c.get('mimeType', 'unknown type')}]"))
            for c in result.get("contents") or []
        )[:MAX_RESOURCE_CHARS]
        attached.append(f'<resource server="{server}" uri="{uri}">\n{body}\n</resource>')
    return text if not attached else text + "\n\n" + "\n\n".join(attached)
