"""What permission patterns match: a call's subject (the command of bash, the path of a file
tool, the domain of web_fetch) and `tool(<glob>)` patterns, as settings and "always" answers
spell them."""

from __future__ import annotations

import fnmatch
from pathlib import Path

from agent_cli.core.tool_contract import ToolContext, ToolInput
from agent_cli.tools.fs import display_path, readable_without_question
from agent_cli.tools.host_rules import domain_of
from agent_cli.tools.shell.rules import SEPARATORS, UNSAFE, normalised


def call_subject(name: str, args: ToolInput, ctx: ToolContext) -> str:
    """What patterns match for a call: the command for bash, the path for file tools."""
    if name == "bash":
        return str(getattr(args, "command", ""))
    if name == "web_fetch":
        return f"domain:{domain_of(str(getattr(args, 'url', '')))}"
    raw = getattr(args, "path", None)
    if not isinstance(raw, str):
        return "." if name in ("glob", "grep") else ""
    return display_path(ctx, ctx.resolve(raw))


def reads_outside(args: ToolInput, ctx: ToolContext) -> Path | None:
    raw = getattr(args, "path", None)
    if not isinstance(raw, str):
        return None
    path = ctx.resolve(raw)
    return None if readable_without_question(ctx, path) else path


def folder_of(path: Path) -> Path:
    return path if path.is_dir() else path.parent


def bash_pattern(command: str) -> str:
    """What "always" allows: the command's first word with any arguments, or the command."""
    first = command.split()[0] if command.split() else command
    simple = not any(mark in command for mark in UNSAFE) and "|" not in command
    return f"bash({first} *)" if simple and first != command.strip() else f"bash({command})"


def matches(pattern: str, name: str, subject: str, deny: bool = False) -> bool:
    """`tool` matches every call of the tool; `tool(<glob>)` matches its command or path.
    An allow glob never matches a chained or redirected command unless it spells that out."""
    if "(" not in pattern or not pattern.endswith(")"):
        return fnmatch.fnmatchcase(name, pattern)  # `mcp__github__*` covers a server
    tool, glob = pattern[:-1].split("(", 1)
    if tool != name:
        return False
    if name == "bash" and not deny:
        risky = [m for m in (*UNSAFE, "|") if m in subject and m not in glob]
        if risky:
            return False
    if name == "bash" and deny:
        # also each command as it runs: without wrappers and assignments, inside `bash -c`/`eval`
        parts = [subject, *(p.strip() for p in _split_chain(subject)), *normalised(subject)]
        return any(fnmatch.fnmatchcase(p, glob) for p in parts)
    return fnmatch.fnmatchcase(subject, glob)


def _split_chain(command: str) -> list[str]:
    return [p for p in SEPARATORS.split(command) if p.strip()]
