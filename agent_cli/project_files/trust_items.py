"""What a workspace asks for that only trust lets take effect, gathered from every source.

Each source that can widen what runs unasked contributes one provider here; `agent trust` and
the question `agent chat` asks show the union, so the user sees everything they agree to.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agent_cli.policy.trust import TrustItem

Provider = Callable[[Path], list[TrustItem]]


def _workspace_settings(workspace: Path) -> list[TrustItem]:
    path = workspace / ".agent" / "settings.json"
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    items: list[TrustItem] = []
    permissions = data.get("permissions")
    if isinstance(permissions, dict):
        mode = permissions.get("mode")
        if mode in ("accept-edits", "bypass"):
            items.append(TrustItem(key="mode", source=str(path), description=f"mode {mode}"))
        for i, rule in enumerate(permissions.get("allow") or []):
            items.append(TrustItem(key=f"allow:{i}", source=str(path), description=f"allow {rule}"))
    web = data.get("web")
    if isinstance(web, dict):  # web_fetch reaching local services, or sending credentials
        for key in ("allow_private_hosts", "allow_credential_urls"):
            if web.get(key) is True:
                described = f"web.{key}"
                items.append(TrustItem(key=f"web:{key}", source=str(path), description=described))
    items += _lsp_commands(data.get("lsp"), str(path))
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event, specs in hooks.items():
            for i, spec in enumerate(specs if isinstance(specs, list) else []):
                command = spec.get("command") if isinstance(spec, dict) else spec
                items.append(
                    TrustItem(
                        key=f"hook:{event}:{i}",
                        source=str(path),
                        description=f"hook {event}: {command}",
                    )
                )
    return items


def _lsp_commands(lsp: Any, source: str) -> list[TrustItem]:
    """Language servers and formatters: commands the agent would start after any edit."""
    if not isinstance(lsp, dict):
        return []
    items: list[TrustItem] = []
    servers = lsp.get("servers")
    for name, spec in (servers if isinstance(servers, dict) else {}).items():
        command = spec.get("command") if isinstance(spec, dict) else spec
        items.append(TrustItem(key=f"lsp:{name}", source=source, description=f"lsp {command}"))
    formatters = lsp.get("formatters")
    for suffix, command in (formatters if isinstance(formatters, dict) else {}).items():
        described = f"formatter {suffix}: {command}"
        items.append(TrustItem(key=f"format:{suffix}", source=source, description=described))
    return items


def _mcp_servers(workspace: Path) -> list[TrustItem]:
    from agent_cli.mcp.config import project_trust_items  # config reading, not the client

    return project_trust_items(workspace)


PROVIDERS: list[Provider] = [_workspace_settings, _mcp_servers]


def widening_items(workspace: Path, more: Sequence[Provider] = ()) -> list[TrustItem]:
    """`more`: the providers of sources on higher floors (project files), passed in by the front
    end that asks, since this module may not import them."""
    items: list[TrustItem] = []
    for provider in [*PROVIDERS, *more]:
        items.extend(provider(workspace))
    return items
