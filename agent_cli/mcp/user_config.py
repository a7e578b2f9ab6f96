"""The files `agent mcp add/remove` edit: the user's `mcp.json`, or the project's `.mcp.json`
(`--scope project`), both in Claude Code's `{"mcpServers": {...}}` shape. Other keys are kept."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from agent_cli.errors import ConfigError
from agent_cli.settings_mcp import McpServerSpec


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ConfigError(f"{path}: not valid JSON ({e}); fix or remove it first") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must hold a JSON object")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mcp-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(data, indent=2) + "\n")
    Path(tmp).chmod(0o600)  # headers may carry tokens
    Path(tmp).replace(path)


def add_server(path: Path, name: str, spec: McpServerSpec) -> bool:
    """True when it replaced a server of that name."""
    data = _read(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        servers = {}
    replaced = name in servers
    servers[name] = spec.model_dump(exclude_defaults=True, exclude_none=True)
    data["mcpServers"] = servers
    _write(path, data)
    return replaced


def remove_server(path: Path, name: str) -> bool:
    data = _read(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or name not in servers:
        return False
    del servers[name]
    _write(path, data)
    return True
