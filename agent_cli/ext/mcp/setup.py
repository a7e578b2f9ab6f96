"""Wiring: which configured servers may start (a project's only in a trusted workspace, and
only as the user saw them), and the manager that starts them. Imports nothing of `mcp`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.settings.schema import Settings
from agent_cli.ext.mcp.manager import McpManager
from agent_cli.ext.mcp.plugins import plugin_servers
from agent_cli.ext.mcp.servers import ServerEntry, load_servers
from agent_cli.ext.mcp.servers import any_configured as any_configured
from agent_cli.policy.trust import TrustStore

if TYPE_CHECKING:
    from agent_cli.runtime.bundles import Bundle

log = logging.getLogger(__name__)


def untrusted_reason(entry: ServerEntry, workspace: Path, store: TrustStore) -> str | None:
    """Why a project server may not start, or None when it may."""
    if not entry.needs_trust:
        return None
    item = entry.trust_item()
    if store.covers(workspace, item.key, item.fingerprint):
        return None
    if store.is_trusted(workspace):
        why = "its command line, headers or environment changed since this workspace was trusted"
    else:
        why = "this workspace is not trusted"
    return f"not started: {why}; run `agent trust` here to allow it"


def build_manager(
    settings: Settings,
    workspace: Path,
    log_dir: Path,
    mode: Callable[[], str] = lambda: "default",
    store: TrustStore | None = None,
    bundles: Sequence[Bundle] = (),
) -> McpManager:
    """Every skipped or untrusted server gets one warning line naming it; the servers of
    enabled plugins (`bundles`) come after the configured ones."""
    more = plugin_servers(bundles) if bundles else []
    loaded = load_servers(workspace, settings, more=more)
    for line in loaded.skipped:
        log.warning("mcp: %s", line)
    store = store or TrustStore()
    runnable: list[ServerEntry] = []
    blocked: dict[str, str] = {}
    for entry in loaded.servers:
        reason = untrusted_reason(entry, workspace, store)
        if reason is None:
            runnable.append(entry)
        else:
            blocked[entry.name] = reason
            log.warning("mcp server '%s' (%s) %s", entry.name, entry.source, reason)
    manager = McpManager(runnable, blocked, settings, workspace, log_dir, mode)
    manager.blocked_entries = {e.name: e for e in loaded.servers if e.name in blocked}
    return manager


def start_mcp(
    settings: Settings,
    workspace: Path,
    log_dir: Path,
    mode: Callable[[], str],
    eager: bool = True,
    bundles: Sequence[Bundle] = (),
) -> McpManager | None:
    """The manager, its servers starting in the background when `eager` (else when its owner
    calls `start()`), or None with nothing to start."""
    plugins = [b for b in bundles if b.mcp_servers]
    if not any_configured(workspace, settings) and not plugins:
        return None
    manager = build_manager(settings, workspace, log_dir, mode, bundles=plugins)
    if eager:
        manager.start()
    return manager
