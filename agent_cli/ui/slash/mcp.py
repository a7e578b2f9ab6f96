"""The REPL's MCP bits: `/mcp` (states, tools, errors; `/mcp reconnect NAME`), a server's
prompts as `/mcp__server__prompt args`, and the status-line count."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_cli.core.text.counts import counted
from agent_cli.ext.mcp.prompts import expand_prompt, prompt_commands

if TYPE_CHECKING:
    from agent_cli.core.events import Event
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.ui.slash.host import Host


def status_part(runtime: Runtime) -> str | None:
    """ "mcp 2/3" (ready of configured) for the status line, or None with no servers."""
    if runtime.mcp is None:
        return None
    ready, total = runtime.mcp.counts()
    return f"mcp {ready}/{total}"


def mcp_command(host: Host, arg: str) -> None:
    manager = host.runtime.mcp
    if manager is None:
        host.say("No MCP servers configured (see `agent mcp add --help`).")
        return
    verb, _, name = arg.partition(" ")
    if verb == "reconnect" and name.strip():
        asyncio.get_running_loop().create_task(_reconnect(host, name.strip()))
        host.say(f"Reconnecting {name.strip()}…", "dim")
        return
    if verb:
        host.say("Usage: /mcp, or /mcp reconnect NAME", "red")
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
    host.say("\n".join(lines) or "No MCP servers configured.")


async def _reconnect(host: Host, name: str) -> None:
    assert host.runtime.mcp is not None
    try:
        status = await host.runtime.mcp.reconnect(name)
    except KeyError as e:
        host.say(str(e.args[0]), "red")
        return
    detail = f" ({status.error})" if status.error else f", {counted(len(status.tools), 'tool')}"
    host.say(f"{name}: {status.state}{detail}")


def run_prompt(host: Host, command: str, arg: str) -> bool:
    """Expand a server prompt into a turn (waiting for servers still starting); False when no
    server is configured, so the command is unknown."""
    manager = host.runtime.mcp
    if manager is None:
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
