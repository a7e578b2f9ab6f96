"""MCP servers: configuration, trust, background connections, and their tools, prompts and
resources. Only `connection.py` imports the `mcp` package, and only once a server starts.

The extension: asked when servers are configured (settings `mcp_servers` or `mcp`, the
workspace's `.mcp.json`, the user's `mcp.json`) or `agent mcp` runs; its modules are imported
only when the spine asks for what it contributes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.ext.mcp.settings import SERVERS, McpSettings, kept
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)

if TYPE_CHECKING:
    from agent_cli.policy.trust import TrustItem


def _trust_items(workspace: Path) -> list[TrustItem]:
    from agent_cli.ext.mcp.servers import project_trust_items

    return project_trust_items(workspace)


def _service(runtime: Any) -> object:
    from agent_cli.ext.mcp.service import McpService

    return McpService(runtime)


def _port(name: str) -> Callable[[ExtensionContext], object]:
    def make(context: ExtensionContext) -> object:
        from agent_cli.ext.mcp import chat, service

        found: Callable[[ExtensionContext], object] = {
            "tool_source": service.tool_source,
            "run_start": service.run_start,
            "attachments": service.attachments,
            "chat_part": chat.chat_part,
        }[name]
        return found(context)

    return make


def _mcp(port: CommandPort, arg: str) -> None:
    from agent_cli.ext.mcp.chat import mcp_command

    mcp_command(port, arg)


def _cli() -> Any:
    from agent_cli.ext.mcp.cli import mcp_app

    return mcp_app


EXTENSION = Extension(
    name="mcp",
    about="MCP servers' tools, prompts and resources",
    settings=McpSettings,
    narrow=kept,
    keys={"mcp_servers": SERVERS},
    trust_items=_trust_items,
    service=_service,
    ports={p: _port(p) for p in ("tool_source", "run_start", "attachments", "chat_part")},
    slash_commands=(
        SlashCommand(
            "/mcp",
            "MCP servers: states, tools, errors; reconnect one",
            _mcp,
            "/mcp [reconnect NAME]",
        ),
    ),
    cli=_cli,
)
