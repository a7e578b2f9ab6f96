"""What a workspace asks for that only trust lets take effect, gathered from every source.

Each source that can widen what runs unasked contributes one provider here; `agent trust` and
the question `agent chat` asks show the union, so the user sees everything they agree to.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_cli.policy.trust import TrustItem

Provider = Callable[[Path], "list[TrustItem]"]
Found = list[tuple[str, str]]  # (key, description) of each item a source asks for


def _workspace_settings(workspace: Path) -> list[TrustItem]:
    path = workspace / ".agent" / "settings.json"
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    found = [
        *_permission_items(data.get("permissions")),
        *_web_items(data.get("web")),
        *_lsp_commands(data.get("lsp")),
        *_hook_items(data.get("hooks")),
        *_status_line_items(data.get("status_line")),
    ]
    if not found:
        return []
    from agent_cli.policy.trust import TrustItem  # there is something to trust

    return [TrustItem(key=key, source=str(path), description=said) for key, said in found]


def _status_line_items(spec: Any) -> Found:
    """The status line's command: run every few seconds while `agent chat` is open."""
    command = spec.get("command") if isinstance(spec, dict) else None
    if not command:
        return []
    return [("status_line", f"status line: {command}")]


def _permission_items(permissions: Any) -> Found:
    if not isinstance(permissions, dict):
        return []
    items: Found = []
    mode = permissions.get("mode")
    if mode in ("accept-edits", "bypass"):
        items.append(("mode", f"mode {mode}"))
    for i, rule in enumerate(permissions.get("allow") or []):
        items.append((f"allow:{i}", f"allow {rule}"))
    return items


def _web_items(web: Any) -> Found:
    """web_fetch reaching local services, or sending credentials."""
    if not isinstance(web, dict):
        return []
    return [
        (f"web:{key}", f"web.{key}")
        for key in ("allow_private_hosts", "allow_credential_urls")
        if web.get(key) is True
    ]


def _hook_items(hooks: Any) -> Found:
    if not isinstance(hooks, dict):
        return []
    items: Found = []
    for event, specs in hooks.items():
        for i, spec in enumerate(specs if isinstance(specs, list) else []):
            command = spec.get("command") if isinstance(spec, dict) else spec
            items.append((f"hook:{event}:{i}", f"hook {event}: {command}"))
    return items


def _lsp_commands(lsp: Any) -> Found:
    """Language servers and formatters: commands the agent would start after any edit."""
    if not isinstance(lsp, dict):
        return []
    items: Found = []
    servers = lsp.get("servers")
    for name, spec in (servers if isinstance(servers, dict) else {}).items():
        command = spec.get("command") if isinstance(spec, dict) else spec
        items.append((f"lsp:{name}", f"lsp {command}"))
    formatters = lsp.get("formatters")
    for suffix, command in (formatters if isinstance(formatters, dict) else {}).items():
        items.append((f"format:{suffix}", f"formatter {suffix}: {command}"))
    return items


def _extension_items(workspace: Path) -> list[TrustItem]:
    """What the built-ins list of the workspace's files (the MCP servers of `.mcp.json` and
    of the workspace settings' `mcp_servers`); one whose files are not there is not imported."""
    from agent_cli.runtime.extensions.builtins import BUILTINS
    from agent_cli.runtime.extensions.contract import Extension
    from agent_cli.runtime.extensions.discovery import load

    items: list[TrustItem] = []
    for declared in BUILTINS:
        if not any(_stat(workspace / name) for name in declared.trusts):
            continue
        extension = load(declared)
        if isinstance(extension, Extension) and extension.trust_items is not None:
            items.extend(extension.trust_items(workspace))
    return items


def _stat(path: Path) -> bool:
    """Something is there (the reader reads nothing where stat fails: it skips such a file)."""
    try:
        path.stat()
    except (OSError, ValueError):
        return False
    return True


PROVIDERS: list[Provider] = [_workspace_settings, _extension_items]


def widening_items(workspace: Path, more: Sequence[Provider] = ()) -> list[TrustItem]:
    """`more`: the providers of sources on higher floors (project files), passed in by the front
    end that asks, since this module may not import them."""
    items: list[TrustItem] = []
    for provider in [*PROVIDERS, *more]:
        items.extend(provider(workspace))
    return items
