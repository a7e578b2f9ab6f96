"""The MCP servers enabled plugins bundle (the port `"plugin_bundles"`), beside the configured
ones: each named `plugin_<plugin>_<server>` (every character outside `[a-zA-Z0-9_-]` made `_`,
at most 64, so its tools' names stay valid), its `${CLAUDE_PLUGIN_ROOT}` and
`${CLAUDE_PLUGIN_DATA}` expanded like any other variable and given to a stdio server in its
environment. A plugin was consented to when installed: its servers need no `agent trust`."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_cli.ext.mcp.names import MAX, clean
from agent_cli.ext.mcp.servers import LoadedMcpConfig, entries_from

if TYPE_CHECKING:
    from agent_cli.runtime.bundles import Bundle


def server_name(plugin: str, server: str) -> str:
    """`plugin_<plugin>_<server>`, valid in a tool name; a digest keeps long ones apart."""
    name = f"plugin_{clean(plugin)}_{clean(server)}"
    if len(name) <= MAX:
        return name
    digest = hashlib.sha256(f"{plugin}\0{server}".encode()).hexdigest()[:8]
    return f"{name[: MAX - 9]}_{digest}"


def plugin_servers(
    bundles: Sequence[Bundle], env: Mapping[str, str] | None = None
) -> list[LoadedMcpConfig]:
    """Each bundle's servers, as configured servers are read (one line per one skipped)."""
    env = os.environ if env is None else env
    found = []
    for bundle in bundles:
        raw = {
            server_name(bundle.name, n): _given(s, bundle) for n, s in bundle.mcp_servers.items()
        }
        variables = {**env, **bundle.environment()}
        found.append(entries_from(raw, f"plugin {bundle.name}", "user", variables))
    return found


def _given(server: Mapping[str, Any], bundle: Bundle) -> Any:
    """A stdio server gets the plugin's variables in its environment (its own win)."""
    if not isinstance(server, Mapping) or "command" not in server:
        return server
    own = server.get("env")
    return {**server, "env": {**bundle.environment(), **(own if isinstance(own, Mapping) else {})}}
