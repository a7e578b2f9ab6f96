"""The commands the agent will run outside the sandbox in this workspace, and so the workspace
files that a confined command must not rewrite (core/outside/later.py): the settings' hooks,
language servers and formatters, status line and MCP servers (a workspace's own only once it is
trusted: settings arrive narrowed), and, in a trusted workspace, `.mcp.json`'s servers and
`.claude/settings*.json`'s hooks."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agent_cli.core.settings.schema import Settings

Command = str | Sequence[str]
CLAUDE_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")
MCP_FILE = ".mcp.json"


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@runtime_checkable
class RunsOutside(Protocol):
    """A settings part (an extension's section, or a value in one of its maps) naming commands
    the agent runs outside the sandbox: language servers, MCP servers, the status line."""

    def runs_outside(self) -> Iterable[Command]: ...


def _settings_commands(settings: Settings) -> Iterator[Command]:
    for specs in settings.hooks.model_dump().values():
        yield from (spec["command"] for spec in specs)
    for key in sorted(type(settings).model_fields):  # an order that is not the extensions'
        value = getattr(settings, key)
        for part in value.values() if isinstance(value, dict) else [value]:
            if isinstance(part, RunsOutside):
                yield from part.runs_outside()


def _mcp_file_commands(data: Any) -> Iterator[Command]:
    servers = data.get("mcpServers", data.get("servers")) if isinstance(data, dict) else None
    for spec in (servers or {}).values() if isinstance(servers, dict) else ():
        if isinstance(spec, dict) and isinstance(spec.get("command"), str):
            args = spec.get("args")
            yield [spec["command"], *(str(a) for a in args or () if isinstance(args, list))]


def _claude_hook_commands(data: Any) -> Iterator[Command]:
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hook in inner if isinstance(inner, list) else ():
                if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                    yield hook["command"]


def commands(settings: Settings, workspace: Path, trusted: bool) -> list[Command]:
    found = list(_settings_commands(settings))
    if trusted:
        found += _mcp_file_commands(_json(workspace / MCP_FILE))
        for name in CLAUDE_SETTINGS:
            found += _claude_hook_commands(_json(workspace / name))
    return found


def run_later(settings: Settings, workspace: Path) -> tuple[Path, ...]:
    """The workspace files the agent will run outside the sandbox, to keep read-only inside."""
    found = commands(settings, workspace, _project_files_trusted(workspace))
    if not found:  # nothing to read the commands' words for
        return ()
    from agent_cli.core.outside.later import workspace_programs

    return workspace_programs(found, workspace)


def _project_files_trusted(workspace: Path) -> bool:
    """Trust is read only when there are project files it would let in."""
    if not any(_there(workspace / name) for name in (MCP_FILE, *CLAUDE_SETTINGS)):
        return False
    from agent_cli.policy.trust import TrustStore

    return TrustStore().is_trusted(workspace)


def _there(path: Path) -> bool:
    """Something is there; where stat fails, a read would too (`_json`: nothing)."""
    try:
        path.stat()
    except (OSError, ValueError):
        return False
    return True
