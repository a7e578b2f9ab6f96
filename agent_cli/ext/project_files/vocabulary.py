"""Claude Code's vocabulary mapped to ours, once: tool names, rule patterns, models, modes.

Every reader of project files (subagent types, commands, skills, hooks' matchers, permission
rules) goes through this table, so `Read` means `read_file` everywhere. A name we have no tool
for maps to None: it is reported as unavailable, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agent_cli.core.options import PermissionMode

# Claude Code's tool -> ours (lower-cased keys: real files write `read`, `Read` and `READ`)
TOOLS: dict[str, str | None] = {
    "read": "read_file",
    "notebookread": "read_file",
    "write": "write_file",
    "edit": "edit_file",
    "multiedit": "edit_file",
    "glob": "glob",
    "ls": "glob",
    "grep": "grep",
    "bash": "bash",
    "todowrite": "todo_write",
    "task": "task",
    "agent": "task",
    "skill": "skill",
    "notebookedit": None,
    "webfetch": None,
    "websearch": None,
    "bashoutput": None,
    "killshell": None,
    "slashcommand": None,
    "askuserquestion": None,
    "exitplanmode": None,
}
OURS = frozenset(
    {"read_file", "write_file", "edit_file", "bash", "glob", "grep", "todo_write", "task"}
    | {"compact", "recall", "skill", "submit_note"}
)
# which of our tools a path rule on a Claude Code tool covers (Read rules cover every reader)
RULE_TOOLS: dict[str, tuple[str, ...]] = {
    "read_file": ("read_file", "glob", "grep"),
    "edit_file": ("edit_file", "write_file"),
    "write_file": ("write_file",),
    "glob": ("glob",),
    "grep": ("grep",),
}
MODES: dict[str, PermissionMode] = {
    "default": "default",
    "acceptedits": "accept-edits",
    "accept-edits": "accept-edits",
    "bypasspermissions": "bypass",
    "bypass": "bypass",
    "plan": "plan",
    "dontask": "default",  # never asks: questions are denied, rules still allow
}
MODE_ORDER: dict[str, int] = {"plan": 0, "default": 1, "accept-edits": 2, "bypass": 3}
PARENT_MODELS = frozenset({"", "inherit", "default"})


@dataclass(frozen=True)
class ToolRef:
    """One entry of a tool list, e.g. `Bash(git diff:*)`."""

    original: str
    tool: str | None  # ours, or None when we have no such tool
    argument: str | None = None  # what is inside the parentheses


def tool_name(name: str) -> str | None:
    """Our name for a Claude Code (or our own) tool name; None when we have no such tool."""
    name = name.strip()
    if name in OURS or name.startswith("mcp__"):
        return name
    return TOOLS.get(name.lower())


def split_entries(value: Any) -> list[str]:
    """A tool list as files write it: a comma string, a space-separated string, a YAML list, a
    JSON list; commas and spaces inside `(...)` belong to the entry."""
    if value is None or value is False:
        return []
    if isinstance(value, (list, tuple)):
        return [e for item in value for e in split_entries(item)]
    text = str(value).strip().strip("[]")
    separator = "," if _outside_parens(text, ",") else " "
    entries: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth <= 0 and (char == separator or (separator == "," and char == "\n")):
            entries.append("".join(current))
            current, depth = [], 0
        else:
            current.append(char)
    entries.append("".join(current))
    return [e.strip().strip("\"'").strip() for e in entries if e.strip().strip("\"'").strip()]


def _outside_parens(text: str, mark: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == mark and depth <= 0:
            return True
    return False


def parse_ref(entry: str) -> ToolRef:
    match = re.fullmatch(r"\s*([\w./*-]+)\s*(?:\((.*)\))?\s*", entry, re.DOTALL)
    if match is None:
        return ToolRef(entry, None)
    return ToolRef(entry, tool_name(match.group(1)), match.group(2))


def tool_refs(value: Any) -> list[ToolRef]:
    return [parse_ref(e) for e in split_entries(value)]


def rule_patterns(entry: str) -> list[str]:
    """A Claude Code rule (`Bash(npm test:*)`, `Read(./secrets/**)`, `Edit`) as our permission
    patterns; empty when no tool of ours is concerned."""
    ref = parse_ref(entry)
    if ref.tool is None:
        return []
    tools = RULE_TOOLS.get(ref.tool, (ref.tool,))
    if ref.argument is None or ref.argument.strip() in ("", "*", "**"):
        return list(tools)  # `Bash(*)` means what `Bash` means
    if ref.tool == "bash":
        return _bash_patterns(ref.argument.strip())
    if ref.tool in RULE_TOOLS:
        path = _path_glob(ref.argument.strip())
        return [f"{t}({path})" for t in tools]
    return [ref.tool]


def _bash_patterns(argument: str) -> list[str]:
    if argument.endswith(":*"):  # a prefix: the command alone, or with anything after it
        prefix = argument[:-2].rstrip()
        return [f"bash({prefix})", f"bash({prefix} *)"]
    return [f"bash({argument})"]


def _path_glob(argument: str) -> str:
    if argument.startswith("//"):
        return argument[1:]
    if argument.startswith("~/"):
        from pathlib import Path

        return str(Path.home() / argument[2:])
    return argument.removeprefix("./").lstrip("/") or "*"


def allowed_tools(refs: Iterable[ToolRef]) -> list[str]:
    """Our tool names an allow-list grants, in order, without repeats."""
    return list(dict.fromkeys(r.tool for r in refs if r.tool is not None))


def matcher_regex(matcher: str) -> str:
    """A hook matcher (`Bash`, `Edit|Write`, `mcp__github__.*`, `*`) as a regex over our names:
    each alternative that names a Claude Code tool becomes ours too."""
    if matcher.strip() in ("", "*"):
        return ".*"
    alternatives = []
    for part in matcher.split("|"):
        alternatives.append(part)
        ours = tool_name(part) if re.fullmatch(r"[\w-]+", part.strip()) else None
        if ours is not None and ours != part:
            alternatives.append(ours)
    return "|".join(alternatives)


def resolve_model(value: Any, aliases: dict[str, str], parent: str) -> tuple[str, str | None]:
    """(model id, a note when the value was not understood). `inherit`, `default` and an
    absent model mean the parent's."""
    text = "" if value is None else str(value).strip()
    if text.lower() in PARENT_MODELS:
        return parent, None
    if text.lower() in aliases:
        return aliases[text.lower()], None
    if text.startswith("claude-"):
        return text, None
    return parent, f"unknown model {text!r}: the parent's model is used"


def resolve_mode(value: Any, session: str) -> tuple[str, bool, str | None]:
    """(our mode, whether questions may be asked, a note). Never wider than the session's."""
    text = "" if value is None else str(value).strip()
    if not text:
        return session, True, None
    mode = MODES.get(text.lower())
    if mode is None:
        return session, True, f"unknown permissionMode {text!r}: the session's mode is used"
    ask = text.lower() != "dontask"
    if MODE_ORDER[mode] > MODE_ORDER.get(session, 1):
        return session, ask, f"permissionMode {text} is wider than the session's ({session})"
    return mode, ask, None
