"""A plugin's JSON configs: hooks (`hooks/hooks.json`, plugin.json's inline object, path or
array, a marketplace entry's inline object) merged into one `{event: [matcher group]}`, and MCP
and language servers (`.mcp.json` with or without its `mcpServers` wrapper, `.lsp.json`, then
plugin.json's; a later name wins). A file named twice (the default and a path to it) loads once.

Unknown keys are kept and ignored; an event Claude Code does not have, a handler written
directly in an event's array, a handler without a command: one warning each, left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from agent_cli.ext.plugins.manifest import read_json

HOOKS_FILE = "hooks/hooks.json"
ENTRY = "marketplace entry"
EVENTS = frozenset(
    {"SessionStart", "Setup", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse"}
    | {"PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure"}
    | {"PostToolBatch", "Notification", "SubagentStart", "SubagentStop", "TaskCreated"}
    | {"TaskCompleted", "Stop", "StopFailure", "TeammateIdle", "InstructionsLoaded"}
    | {"ConfigChange", "CwdChanged", "FileChanged", "WorktreeCreate", "WorktreeRemove"}
    | {"PreCompact", "PostCompact", "Elicitation", "ElicitationResult", "SessionEnd"}
)
MAX_TIMEOUT = 600  # seconds, Claude Code's default and most a handler is given

Hooks = dict[str, list[dict[str, Any]]]


class PluginLoad(Protocol):
    """The load in progress (components.Plugin): its folder, its warnings, its path check."""

    root: Path

    def warn(self, file: str, key: str, problem: str) -> None: ...

    def inside(self, raw: Any, file: str, key: str) -> Path | None: ...


def merge_hooks(plugin: PluginLoad, declared: list[tuple[str, Any]]) -> Hooks:
    """hooks/hooks.json, then each declared hooks value in order. An entry's inline hooks
    replace the matchers of each event they name (the docs' rule); the rest add to them."""
    merged: Hooks = {}
    loaded: set[Path] = set()
    default = plugin.root / HOOKS_FILE
    if default.is_file():
        _hooks_path(plugin, merged, loaded, HOOKS_FILE, HOOKS_FILE, "hooks")
    for file, value in declared:
        if file == ENTRY and not isinstance(value, dict):
            plugin.warn(
                file,
                "hooks",
                "a marketplace entry's hooks must be an inline object, "
                f"not a {type(value).__name__}; ignored",
            )
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                events = _inline_events(item)
                _merge(plugin, merged, events, file, "hooks", replace=file == ENTRY)
            else:
                _hooks_path(plugin, merged, loaded, item, file, "hooks")
    return merged


def _inline_events(value: dict[str, Any]) -> Any:
    """plugin.json's inline hooks are the `{event: [...]}` map; some write the file's shape."""
    inner = value.get("hooks")
    return inner if isinstance(inner, dict) and not set(value) & EVENTS else value


def _hooks_path(
    plugin: PluginLoad, merged: Hooks, loaded: set[Path], raw: Any, file: str, key: str
) -> None:
    path = plugin.inside(raw, file, key)
    if path is None or path in loaded:
        return
    if path.is_dir():
        plugin.warn(file, key, f"{raw!r} is a folder where a hooks .json file is expected; ignored")
        return
    loaded.add(path)
    shown = str(path.relative_to(plugin.root))
    data, problem = read_json(path)
    if problem is not None:
        plugin.warn(shown, key, f"{problem}; its hooks are not loaded")
    elif not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        plugin.warn(shown, key, "has no `hooks` object; nothing loaded from it")
    else:
        _merge(plugin, merged, data["hooks"], shown, "hooks", replace=False)


def _merge(
    plugin: PluginLoad, merged: Hooks, events: Any, file: str, key: str, *, replace: bool
) -> None:
    if not isinstance(events, dict):
        plugin.warn(file, key, "not an object of events; ignored")
        return
    for event, groups in events.items():
        where = f"{key}.{event}"
        if event not in EVENTS:
            plugin.warn(file, where, "not a hook event; ignored")
            continue
        if not isinstance(groups, list):
            plugin.warn(file, where, "not a list of matcher groups; ignored")
            continue
        found = (_group(plugin, g, file, f"{where}[{i}]") for i, g in enumerate(groups))
        kept = [g for g in found if g is not None]
        if replace:
            merged[event] = kept
        elif kept:
            merged.setdefault(event, []).extend(kept)


def _group(plugin: PluginLoad, group: Any, file: str, where: str) -> dict[str, Any] | None:
    if isinstance(group, dict) and "hooks" not in group and ("command" in group or "type" in group):
        plugin.warn(
            file,
            where,
            "a handler directly in the event's list, with no matcher group around it; ignored",
        )
        return None
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        plugin.warn(file, where, "not a matcher group (an object with a `hooks` list); ignored")
        return None
    checked = (
        _handler(plugin, h, file, f"{where}.hooks[{i}]") for i, h in enumerate(group["hooks"])
    )
    handlers = [h for h in checked if h is not None]
    return {**group, "hooks": handlers} if handlers else None


def _handler(plugin: PluginLoad, handler: Any, file: str, where: str) -> dict[str, Any] | None:
    if not isinstance(handler, dict):
        plugin.warn(file, where, "not a handler object; ignored")
        return None
    kind = handler.get("type", "command")
    command = handler.get("command")
    if kind == "command" and (not isinstance(command, str) or not command.strip()):
        plugin.warn(file, where, "a command handler without a command; ignored")
        return None
    found = dict(handler)
    timeout = found.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)):
        plugin.warn(file, f"{where}.timeout", f"{timeout!r} is not a number of seconds; dropped")
        del found["timeout"]
    elif timeout is not None and timeout > MAX_TIMEOUT:
        seconds = max(1, round(timeout / 1000))
        plugin.warn(
            file,
            f"{where}.timeout",
            f"{timeout} seconds looks like milliseconds; read as {seconds} s",
        )
        found["timeout"] = seconds
    return found


def read_servers(
    plugin: PluginLoad, default: str, key: str, declared: list[tuple[str, Any]]
) -> dict[str, dict[str, Any]]:
    """`default` (`.mcp.json` / `.lsp.json`), then each declared value: a path to a .json file,
    an inline map, or a list of either; a server named again replaces the earlier one."""
    servers: dict[str, dict[str, Any]] = {}
    loaded: set[Path] = set()
    if (plugin.root / default).is_file():
        _servers_path(plugin, servers, loaded, default, default, key)
    for file, value in declared:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                _add_servers(plugin, servers, item, file, key)
            else:
                _servers_path(plugin, servers, loaded, item, file, key)
    return servers


def _servers_path(
    plugin: PluginLoad,
    servers: dict[str, dict[str, Any]],
    loaded: set[Path],
    raw: Any,
    file: str,
    key: str,
) -> None:
    if isinstance(raw, str) and raw.strip().lower().endswith((".mcpb", ".dxt")):
        plugin.warn(file, key, f"{raw!r}: bundled servers (.mcpb/.dxt) are not supported; ignored")
        return
    path = plugin.inside(raw, file, key)
    if path is None or path in loaded:
        return
    loaded.add(path)
    shown = str(path.relative_to(plugin.root))
    data, problem = read_json(path) if path.is_file() else (None, "is not a file")
    if problem is not None:
        plugin.warn(shown, key, f"{problem}; its servers are not loaded")
    else:
        _add_servers(plugin, servers, data, shown, key)


def _add_servers(
    plugin: PluginLoad, servers: dict[str, dict[str, Any]], data: Any, file: str, key: str
) -> None:
    """A `{name: config}` map, or one wrapped as `{"mcpServers": {...}}` / `{"lspServers": ...}`."""
    if isinstance(data, dict) and isinstance(data.get(key), dict):
        data = data[key]
    if not isinstance(data, dict):
        plugin.warn(file, key, "not an object of servers; ignored")
        return
    for name, config in data.items():
        problem = _server_problem(config, key)
        if problem:
            plugin.warn(file, f"{key}.{name}", f"{problem}; ignored")
        else:
            servers[str(name)] = dict(config)


def _server_problem(config: Any, key: str) -> str | None:
    if not isinstance(config, Mapping):
        return "not a server object"
    command, url = config.get("command"), config.get("url")
    if key == "lspServers":
        if not isinstance(command, str) or not command.strip():
            return "a language server needs a `command`"
        if not isinstance(config.get("extensionToLanguage"), Mapping):
            return 'a language server needs `extensionToLanguage` (`{".go": "go"}`)'
        return None
    if isinstance(command, str) and command.strip():
        return None
    if isinstance(url, str) and url.strip():
        return None
    return "a server needs a `command` (stdio) or a `url` (http, sse, ws)"
