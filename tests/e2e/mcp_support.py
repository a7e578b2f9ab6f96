"""Helpers for the MCP tests: the test server's launch specs and an agent wired to them."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_cli.core.events import Event
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.ext.mcp.manager import McpManager
from agent_cli.loop.agent import Agent
from agent_cli.model.call_log import CallLog
from agent_cli.runtime.assembly import build_agent
from agent_cli.runtime.build import make_client
from agent_cli.runtime.extensions.registry import discover
from agent_cli.runtime.extensions.settings import parse_all
from agent_cli.runtime.opening import open_session
from agent_cli.tools.present_plan import PlanModeTools

SERVER = Path(__file__).resolve().parent / "mcp_server" / "server.py"


def stdio_spec(*extra: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), *extra]}


@contextlib.contextmanager
def http_server(transport: str = "http") -> Iterator[str]:
    """The test server over HTTP on 127.0.0.1:0; yields its URL."""
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--transport", transport],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT "), f"server did not start: {line!r}"
        path = "/mcp" if transport == "http" else "/sse"
        yield f"http://127.0.0.1:{int(line.split()[1])}{path}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close() if proc.stdout else None


def make_agent(workspace: Path, settings: dict[str, Any]) -> Agent:
    options = Options(workspace=workspace)
    parsed = parse_all(settings)
    session, _ = open_session(options, parsed, Paths(workspace))
    mcp = discover(path=[])  # every built-in: MCP's tools, and project files' agent types
    return build_agent(session, make_client(parsed, CallLog(None, None)), options, extensions=mcp)


def manager(agent: Agent) -> McpManager:
    source = agent.registry.source
    source = source.inner if isinstance(source, PlanModeTools) else source  # present_plan's
    assert isinstance(source, McpManager)
    return source


async def turns(agent: Agent, *prompts: str, wait: bool = True) -> list[list[Event]]:
    """Runs the prompts as turns (after every server has started, unless `wait` is False)."""
    try:
        if wait:
            await manager(agent).wait_started()
        return [[e async for e in agent.run_turn(p)] for p in prompts]
    finally:
        await agent.registry.aclose()
        await agent.client.close()


def run(coro: Any) -> Any:
    return asyncio.run(coro)
