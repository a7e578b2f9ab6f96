"""Where MCP servers come from, read leniently: settings `mcp_servers`, the user's `mcp.json`
(what `agent mcp add` writes) and a project's `.mcp.json` in Claude Code's format.

Real `.mcp.json` files take liberties: `type` absent or `"streamable-http"`, unknown per-server
fields, extra top-level keys, an empty file, Windows launch lines. Each server loads, or is
skipped with one line naming the file and the server; nothing here raises.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from agent_cli.core.settings.schema import Settings, user_config_dir
from agent_cli.ext.mcp.settings import (
    CredentialVariable,
    McpServerSpec,
    MissingVariable,
    expand_spec,
    mcp_servers,
)
from agent_cli.policy.trust import TrustItem

PROJECT_FILE = ".mcp.json"
WORKSPACE_SETTINGS = Path(".agent") / "settings.json"
KNOWN_FIELDS = frozenset(McpServerSpec.model_fields)
TRANSPORTS = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "sse": "sse",
}
WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]")

Scope = Literal["user", "project"]


@dataclass(frozen=True)
class ServerEntry:
    """A configured server: `written` as the file has it, `spec` with variables expanded."""

    name: str
    written: McpServerSpec
    spec: McpServerSpec
    source: Path | str
    scope: Scope

    @property
    def needs_trust(self) -> bool:
        return self.scope == "project"

    def trust_item(self) -> TrustItem:
        return TrustItem(
            key=f"mcp:{self.name}",
            source=str(self.source),
            description=f"mcp server {self.name}: {self.written.trust_line()}",
        )


@dataclass
class LoadedMcpConfig:
    servers: list[ServerEntry] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one line each


def user_file() -> Path:
    return user_config_dir() / "mcp.json"


def read_servers_file(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The raw `mcpServers` object of a file, and lines for what could not be read."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}, []
    except OSError as e:
        return {}, [f"{path}: cannot be read ({e.strerror})"]
    if not text.strip():
        return {}, []
    try:
        data = json.loads(text)
    except ValueError as e:
        return {}, [f"{path}: not valid JSON ({e}); its servers are skipped"]
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if servers is None:
        return {}, [f'{path}: no "mcpServers" object; nothing to load']
    if not isinstance(servers, dict):
        return {}, [f'{path}: "mcpServers" is not an object; nothing to load']
    return servers, []


def normalise(raw: Any) -> McpServerSpec:
    """A lenient reading of one server object; ValueError says why it cannot be used."""
    if not isinstance(raw, dict):
        raise ValueError("not a JSON object")
    if raw.get("disabled") is True:
        raise ValueError("marked disabled")
    data = {k: v for k, v in raw.items() if k in KNOWN_FIELDS and v is not None}
    if "type" in data:
        kind = TRANSPORTS.get(str(data["type"]).lower())
        if kind is None:
            raise ValueError(f"unknown transport type {data['type']!r}")
        data["type"] = kind
    for key in ("env", "headers"):
        if isinstance(data.get(key), dict):
            data[key] = {str(k): _scalar(v) for k, v in data[key].items()}
    if isinstance(data.get("args"), list):
        data["args"] = [_scalar(a) for a in data["args"]]
    if os.name != "nt" and isinstance(data.get("command"), str):
        data["command"], data["args"] = _posix_launch(data["command"], data.get("args") or [])
    try:
        return McpServerSpec.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"{where + ': ' if where else ''}{first['msg']}") from None


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _posix_launch(command: str, args: list[Any]) -> tuple[str, list[Any]]:
    """`cmd /c npx …` and `npx.cmd` are how Windows users write `npx …`."""
    if command.lower() in ("cmd", "cmd.exe") and args and str(args[0]).lower() == "/c":
        command, args = str(args[1]) if len(args) > 1 else "", args[2:]
    if WINDOWS_PATH.match(command):
        raise ValueError(f"{command} is a Windows path; it cannot run here")
    for suffix in (".cmd", ".exe", ".bat"):
        if command.lower().endswith(suffix) and "/" not in command:
            command = command[: -len(suffix)]
    return command, args


def entries_from(
    servers: Mapping[str, Any],
    source: Path | str,
    scope: Scope,
    env: Mapping[str, str],
    expand_vars: bool = True,
) -> LoadedMcpConfig:
    loaded = LoadedMcpConfig()
    for name, raw in servers.items():
        try:
            written = raw if isinstance(raw, McpServerSpec) else normalise(raw)
            spec = expand_spec(written, env) if expand_vars else written
        except (ValueError, MissingVariable, CredentialVariable) as e:
            loaded.skipped.append(f"{source}: server '{name}' skipped: {e}")
            continue
        loaded.servers.append(ServerEntry(name, written, spec, source, scope))
    return loaded


def workspace_setting_servers(workspace: Path) -> dict[str, Any]:
    try:
        data = json.loads((workspace / WORKSPACE_SETTINGS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    servers = data.get("mcp_servers") if isinstance(data, dict) else None
    return servers if isinstance(servers, dict) else {}


def load_servers(
    workspace: Path,
    settings: Settings,
    env: Mapping[str, str] | None = None,
    more: Sequence[LoadedMcpConfig] = (),
) -> LoadedMcpConfig:
    """Every configured server; on a name defined twice, settings win over the user's
    `mcp.json`, which wins over the project's `.mcp.json`, which wins over `more` (what
    enabled plugins bring, read by the MCP extension)."""
    env = os.environ if env is None else env
    in_workspace = set(workspace_setting_servers(workspace))
    from_workspace = {k: v for k, v in mcp_servers(settings).items() if k in in_workspace}
    from_user = {k: v for k, v in mcp_servers(settings).items() if k not in in_workspace}
    parts = [
        entries_from(from_workspace, workspace / WORKSPACE_SETTINGS, "project", env),
        entries_from(from_user, "settings", "user", env),
    ]
    user_raw, user_lines = read_servers_file(user_file())
    parts.append(entries_from(user_raw, user_file(), "user", env))
    project = workspace / PROJECT_FILE
    project_raw, project_lines = read_servers_file(project)
    parts.append(entries_from(project_raw, project, "project", env))
    parts += more
    result = LoadedMcpConfig(skipped=[*user_lines, *project_lines])
    seen: dict[str, ServerEntry] = {}
    for part in parts:
        result.skipped.extend(part.skipped)
        for entry in part.servers:
            if entry.name in seen:
                result.skipped.append(
                    f"{entry.source}: server '{entry.name}' skipped: also defined in "
                    f"{seen[entry.name].source}, which wins"
                )
                continue
            seen[entry.name] = entry
            result.servers.append(entry)
    return result


def any_configured(workspace: Path, settings: Settings) -> bool:
    """Cheap: is there anything to load at all (so the MCP machinery can stay unimported)?"""
    return bool(
        mcp_servers(settings) or user_file().is_file() or (workspace / PROJECT_FILE).is_file()
    )


def project_trust_items(workspace: Path) -> list[TrustItem]:
    """What `agent trust` shows and records for the project's servers: each one's command line
    (or URL) with its headers and environment as written, so any change is asked again."""
    raw, _ = read_servers_file(workspace / PROJECT_FILE)
    found = entries_from(raw, workspace / PROJECT_FILE, "project", {}, expand_vars=False)
    settings_raw = workspace_setting_servers(workspace)
    in_settings = entries_from(
        settings_raw, workspace / WORKSPACE_SETTINGS, "project", {}, expand_vars=False
    )
    found.servers.extend(in_settings.servers)
    return [e.trust_item() for e in found.servers]
