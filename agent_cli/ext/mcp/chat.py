"""The chat's MCP bits: `/mcp` (states, tools, errors; `/mcp reconnect NAME`), a server's
prompts as `/mcp__server__prompt args`, `@server:uri` completions and the status-line count
(the port "chat_part")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from agent_cli.core.text.counts import counted
from agent_cli.ext.mcp.manager import McpManager
from agent_cli.ext.mcp.prompts import expand_prompt, prompt_commands, resource_mentions
from agent_cli.ext.mcp.service import McpService, service_of
from agent_cli.runtime.extensions.contract import CommandPort, ExtensionContext

if TYPE_CHECKING:
    from agent_cli.core.events import Event
    from agent_cli.ui.slash.host import Host

PREFIX = "/mcp__"


def status_part(manager: McpManager | None) -> str | None:
    """ "mcp 2/3" (ready of configured) for the status line, or None with no servers."""
    if manager is None:
        return None
    ready, total = manager.counts()
    return f"mcp {ready}/{total}"


def _manager(port: CommandPort) -> McpManager | None:
    service = service_of(port.context)
    return service.manager if service is not None else None


def mcp_command(port: CommandPort, arg: str) -> None:
    manager = _manager(port)
    if manager is None:
        port.say("No MCP servers configured (see `agent mcp add --help`).")
        return
    verb, _, name = arg.partition(" ")
    if verb == "reconnect" and name.strip():
        asyncio.get_running_loop().create_task(_reconnect(port, manager, name.strip()))
        port.say(f"Reconnecting {name.strip()}…", "dim")
        return
    if verb:
        port.say("Usage: /mcp, or /mcp reconnect NAME", "red")
        return
    lines = []
    for s in manager.status():
        lines.append(f"{s.name}  {s.state}  {counted(len(s.tools), 'tool')}  ({s.source})")
        if s.tools:
            lines.append("  " + ", ".join(s.tools))
        if s.error:
            lines.append(f"  error: {s.error}")
    commands = sorted(prompt_commands(manager))
    if commands:
        lines.append("prompts: " + " ".join(commands))
    port.say("\n".join(lines) or "No MCP servers configured.")


async def _reconnect(port: CommandPort, manager: McpManager, name: str) -> None:
    try:
        status = await manager.reconnect(name)
    except KeyError as e:
        port.say(str(e.args[0]), "red")
        return
    detail = f" ({status.error})" if status.error else f", {counted(len(status.tools), 'tool')}"
    port.say(f"{name}: {status.state}{detail}")


class McpChat:
    """The chat's part of the run's MCP servers (ui/slash/host.py's ChatPart)."""

    def __init__(self, service: McpService) -> None:
        self.service = service

    def status(self) -> str | None:
        return status_part(self.service.manager)

    def watch(self, changed: Callable[[], None]) -> None:
        if self.service.manager is not None:  # the status line's count follows the servers
            self.service.manager.on_change = changed

    def completions(self, kind: str) -> list[str]:
        manager = self.service.manager
        if kind == "commands":
            return sorted(prompt_commands(manager))
        return resource_mentions(manager) if kind == "mentions" else []

    def run(self, host: Host, command: str, arg: str) -> bool:
        """Expand a server prompt into a turn (waiting for servers still starting); False when
        no server is configured, so the command is unknown."""
        manager = self.service.manager
        if manager is None or not command.startswith(PREFIX):
            return False

        async def events() -> AsyncIterator[Event]:
            await manager.wait_started()
            found = prompt_commands(manager).get(command)
            if found is None:
                known = " ".join(sorted(prompt_commands(manager))) or "none"
                host.say(f"Unknown command {command}. MCP prompts: {known}", "red")
                return
            server, prompt = found
            try:
                text = await expand_prompt(manager, server, prompt, arg)
            except Exception as e:
                host.say(f"{command}: {e}", "red")
                return
            async for event in host.runtime.turn(text):
                yield event

        host.start(events)
        return True


def chat_part(context: ExtensionContext) -> McpChat | None:
    service = service_of(context)
    return McpChat(service) if service is not None else None
