"""The MCP client against reference servers users really install, through the agent's own
manager: start, list, one call each, timed. Not needed by CI (they need PyPI/npm installs).

    python bench/mcp_reference.py [--server 'NAME=COMMAND ARGS…' --call 'NAME=TOOL JSON']…

Without --server it tries `mcp-server-time` and `mcp-server-fetch` (pip install them) and
`@modelcontextprotocol/server-everything` and `server-filesystem` through `npx` (npm), each
only if it can be found; a server that cannot be found is reported, not an error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from common import REPO

from agent_cli.core.settings.schema import Settings
from agent_cli.ext.mcp.setup import build_manager

HERE = str(REPO)
DEFAULTS: dict[str, tuple[list[str], str, dict[str, Any]]] = {
    "time": (["mcp-server-time"], "get_current_time", {"timezone": "UTC"}),
    "fetch": (["mcp-server-fetch"], "fetch", {"url": "http://127.0.0.1:9/"}),
    "everything": (
        ["npx", "-y", "@modelcontextprotocol/server-everything"],
        "echo",
        {"message": "hi"},
    ),
    "filesystem": (
        ["npx", "-y", "@modelcontextprotocol/server-filesystem", HERE],
        "list_directory",
        {"path": HERE},
    ),
}


def wanted(args: argparse.Namespace) -> dict[str, tuple[list[str], str, dict[str, Any]]]:
    if not args.server:
        return {k: v for k, v in DEFAULTS.items() if shutil.which(v[0][0])}
    calls = {}
    for item in args.call:
        name, _, rest = item.partition("=")
        tool, _, raw = rest.partition(" ")
        calls[name] = (tool, json.loads(raw or "{}"))
    found = {}
    for item in args.server:
        name, _, line = item.partition("=")
        tool, tool_args = calls.get(name, ("", {}))
        found[name] = (shlex.split(line), tool, tool_args)
    return found


async def probe(servers: dict[str, tuple[list[str], str, dict[str, Any]]]) -> None:
    specs = {n: {"command": c[0], "args": c[1:]} for n, (c, _, _) in servers.items()}
    settings = Settings.model_validate({"mcp_servers": specs, "mcp": {"startup_timeout_s": 120}})
    with tempfile.TemporaryDirectory() as logs:
        manager = build_manager(settings, Path.cwd(), Path(logs))
        ready_at: dict[str, float] = {}  # each server's own start, not the slowest one's

        def changed() -> None:
            for status in manager.status():
                if status.state == "ready":
                    ready_at.setdefault(status.name, time.perf_counter() - start)

        manager.on_change = changed
        start = time.perf_counter()
        manager.start()
        await manager.wait_started()
        all_s = time.perf_counter() - start
        try:
            for status in manager.status():
                ready_s = ready_at.get(status.name, all_s)
                print(
                    f"{status.name}: {status.state} after {ready_s:.1f} s, "
                    f"{len(status.tools)} tools: {', '.join(status.tools[:8])}"
                    f"{' …' if len(status.tools) > 8 else ''}"
                )
                if status.error:
                    print(f"  error: {status.error}")
                _, tool, tool_args = servers[status.name]
                if status.state == "ready" and tool:
                    began = time.perf_counter()
                    result = await manager.call(status.name, tool, tool_args)
                    took = (time.perf_counter() - began) * 1000
                    flag = "error result" if result.is_error else "ok"
                    print(f"  {tool}: {flag} in {took:.0f} ms: {result.content[:160]!r}")
        finally:
            await manager.aclose()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", action="append", default=[])
    parser.add_argument("--call", action="append", default=[])
    servers = wanted(parser.parse_args())
    missing = sorted(set(DEFAULTS) - set(servers)) if not parser.parse_args().server else []
    for name in missing:
        print(f"{name}: not installed here (skipped)")
    asyncio.run(probe(servers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
