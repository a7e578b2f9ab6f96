"""The files `agent mcp add/remove` edit: the user's `mcp.json`, or the project's `.mcp.json`
(`--scope project`), both in Claude Code's `{"mcpServers": {...}}` shape. Other keys are kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_cli.core.files.private_file import read_object, write_private
from agent_cli.ext.mcp.settings import McpServerSpec


def _write(path: Path, data: dict[str, Any]) -> None:
    write_private(path, json.dumps(data, indent=2) + "\n")  # headers may carry tokens


def add_server(path: Path, name: str, spec: McpServerSpec) -> bool:
    """True when it replaced a server of that name."""
    data = read_object(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        servers = {}
    replaced = name in servers
    servers[name] = spec.model_dump(exclude_defaults=True, exclude_none=True)
    data["mcpServers"] = servers
    _write(path, data)
    return replaced


def remove_server(path: Path, name: str) -> bool:
    data = read_object(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or name not in servers:
        return False
    del servers[name]
    _write(path, data)
    return True
