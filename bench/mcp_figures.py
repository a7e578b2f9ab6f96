"""MCP figures, side by side in one run:

- the input tokens of a request once 300 MCP tools (10 servers x 30) are ready, beside no
  server, and beside the same 300 sent whole (budget off): the tool search keeps the cost flat;
- one MCP tool call through the agent (registry, permission gate, result budget, manager)
  beside the same call made straight with the `mcp` SDK's client: the agent's own overhead.

    python bench/mcp_figures.py [--calls N] [--servers N] [--tools N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import REPO, Figure, report

from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.settings.schema import Settings
from agent_cli.model.call_log import CallLog
from agent_cli.runtime.assembly import build_agent
from agent_cli.runtime.build import make_client
from agent_cli.runtime.opening import open_session
from tests.e2e.mcp_support import SERVER, manager
from tests.fake_model import FakeAnthropic

KEY = "sk-test-" + "k" * 32


def servers(count: int, tools: int) -> dict[str, Any]:
    return {
        f"s{i}": {"command": sys.executable, "args": [str(SERVER), "--tools", str(tools)]}
        for i in range(count)
    }


async def first_ready_request(
    fake: FakeAnthropic, workspace: Path, mcp: dict[str, Any], budget: int | None
) -> int:
    """Input tokens (uncached + cache reads + cache writes) of a request made once every
    server is ready."""
    limits = {"tool_budget_tokens": budget}
    settings = Settings.model_validate(
        {"permissions": {"mode": "bypass"}, "mcp_servers": mcp, "mcp": limits}
    )
    options = Options(workspace=workspace)
    session, _ = open_session(options, settings, Paths(workspace))
    agent = build_agent(session, make_client(settings, CallLog(None, None)), options)
    fake.script.text("ok")
    try:
        if agent.registry.source is not None:
            await manager(agent).wait_started()
        async for _ in agent.run_turn("hello"):
            pass
    finally:
        await agent.registry.aclose()
        await agent.client.close()
    u = session.usage
    return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens


async def call_overhead(workspace: Path, calls: int) -> tuple[list[float], list[float]]:
    """Seconds per `echo` call: through the agent's registry, and straight through the SDK."""
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    settings = Settings.model_validate(
        {"permissions": {"mode": "bypass"}, "mcp_servers": servers(1, 0)}
    )
    options = Options(workspace=workspace)
    session, _ = open_session(options, settings, Paths(workspace))
    agent = build_agent(session, make_client(settings, CallLog(None, None)), options)
    ours: list[float] = []
    raw: list[float] = []
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    try:
        async with Client(params, mode="legacy", cache=None) as client:
            await manager(agent).wait_started()
            await client.list_tools()
            for i in range(calls):  # interleaved, so the machine's load hits both alike
                start = time.perf_counter()
                result = await agent.registry.dispatch(
                    "mcp__s0__echo", {"text": f"n{i}"}, session.tool_ctx, f"call{i}"
                )
                ours.append(time.perf_counter() - start)
                assert result.content == f"echo: n{i}", result.content
                start = time.perf_counter()
                await client.call_tool("echo", {"text": f"n{i}"})
                raw.append(time.perf_counter() - start)
    finally:
        await agent.registry.aclose()
        await agent.client.close()
    return ours, raw


async def measure(args: argparse.Namespace) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropic() as fake:
        import os

        os.environ.update(ANTHROPIC_BASE_URL=fake.base_url, ANTHROPIC_API_KEY=KEY)
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        many = servers(args.servers, args.tools)
        none = await first_ready_request(fake, Path(tmp), {}, None)
        searched = await first_ready_request(fake, Path(tmp), many, None)
        whole = await first_ready_request(fake, Path(tmp), many, 10_000_000)
        ours, raw = await call_overhead(Path(tmp), args.calls)
    total = args.servers * args.tools
    extra = searched - none
    overhead = [o - r for o, r in zip(ours, raw, strict=True)]  # call by call
    median_overhead = statistics.median(ours) - statistics.median(raw)
    return [
        Figure.of("input tokens, no MCP server", [none], "tok"),
        Figure.of(
            f"input tokens, {total} MCP tools (search)",
            [searched],
            "tok",
            f"+{extra:,} (target ≤ +3,000)",
            extra <= 3_000,
        ),
        Figure.of(
            f"input tokens, {total} MCP tools sent whole",
            [whole],
            "tok",
            f"+{whole - none:,} without the search",
        ),
        Figure.of("MCP call through the agent", ours, "s"),
        Figure.of("MCP call straight through the SDK", raw, "s"),
        Figure.of(
            "agent overhead per MCP call",
            overhead,
            "s",
            f"pairwise; medians differ by {median_overhead * 1000:.2f} ms",
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--servers", type=int, default=10)
    parser.add_argument("--tools", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    return report(asyncio.run(measure(args)), args.json)


if __name__ == "__main__":
    assert REPO  # common puts the repository on sys.path
    raise SystemExit(main())
