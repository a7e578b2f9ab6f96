"""The tests' MCP server: stdio, streamable HTTP or SSE on 127.0.0.1:0.

    python -m tests.mcp_server.server [--transport stdio|http|sse] [--startup-delay S]
                                      [--tools N] [--name NAME] [--crash-flag PATH]

Over HTTP/SSE it prints `PORT <n>` on stdout once it listens. Tools: `echo` (text, read-only),
`dot.image` (a PNG; its name needs sanitising), `slow` (sleeps), `crash` (the process dies),
`grow` (adds `late` and sends tools/list_changed), `big` (a huge text), `fail` (isError),
`where` (environment and cwd) and `filler_<i>` tools for benchmarks; one prompt (`review`) and
one resource (`docs://readme`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ToolAnnotations
from pydantic import Field

# a 1x1 transparent PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
README = "The test server's readme: it explains nothing, on purpose."


def build(name: str, fillers: int) -> MCPServer:
    server = MCPServer(name)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def echo(text: str) -> str:
        """Returns the text it is given."""
        return f"echo: {text}"

    @server.tool(name="dot.image")
    def image() -> Image:
        """Returns a tiny PNG image."""
        return Image(data=PNG, format="png")

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleeps, then answers. In $MCP_TEST_MARK (if set) it writes "started", then
        "cancelled" if it is cancelled."""
        mark = os.environ.get("MCP_TEST_MARK")
        if mark:
            Path(mark).write_text("started", encoding="utf-8")
        try:
            await asyncio.sleep(seconds)
        except BaseException:
            if mark:
                Path(mark).write_text("cancelled", encoding="utf-8")
            raise
        return f"slept {seconds}"

    @server.tool()
    def crash() -> str:
        """Kills the server process."""
        os._exit(3)

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Adds the tool `late` and tells the client its tool list changed."""

        def late(n: int) -> str:
            """A tool that appeared later."""
            return f"late {n}"

        server.add_tool(late, name="late")
        await ctx.session.send_tool_list_changed()
        return "grown"

    @server.tool()
    def big(chars: int) -> str:
        """Returns `chars` characters of text."""
        return ("0123456789abcdef" * (chars // 16 + 1))[:chars]

    @server.tool()
    async def garbage() -> str:
        """Writes junk where its answer should be, then never answers."""
        sys.stdout.write('this is not JSON-RPC\n{"jsonrpc": "2.0", "id": "x"\n')
        sys.stdout.flush()
        await asyncio.sleep(3600)
        return "never"

    @server.tool()
    def fail() -> str:
        """Always fails (the result carries isError)."""
        raise ToolError("this tool always fails")

    @server.tool()
    def where() -> str:
        """The server's working directory and MCP_TEST_* variables."""
        env = {k: v for k, v in sorted(os.environ.items()) if k.startswith("MCP_TEST_")}
        return f"cwd={Path.cwd()} env={env}"

    for i in range(fillers):
        server.add_tool(_filler(i), name=f"filler_{i}")

    @server.prompt()
    def review(topic: str) -> str:
        """Asks for a review of a topic."""
        return f"Please review {topic} carefully and list three risks."

    @server.resource("docs://readme", mime_type="text/plain")
    def readme() -> str:
        """The test server's readme."""
        return README

    return server


def _filler(i: int) -> Any:
    """A tool about the size of a real server's (four documented parameters, a paragraph)."""

    def filler(
        query: Annotated[str, Field(description="Words to match in the record's title or body.")],
        limit: Annotated[int, Field(description="How many records to return at most.")] = 10,
        order: Annotated[str, Field(description="newest, oldest or relevance.")] = "relevance",
        archived: Annotated[bool, Field(description="Include archived records too.")] = False,
    ) -> str:
        return f"filler {i}: {query} ({limit})"

    filler.__doc__ = (
        f"Looks up records of kind {i} matching a query and returns their ids, titles and "
        "update times, newest first unless `order` says otherwise. Use it before opening a "
        "record in full; it never changes anything."
    )
    return filler


async def serve_http(server: MCPServer, transport: str) -> None:
    import uvicorn

    app = server.streamable_http_app() if transport == "http" else server.sse_app()
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    web = uvicorn.Server(config)
    task = asyncio.create_task(web.serve())
    while not web.started:
        await asyncio.sleep(0.01)
    port = web.servers[0].sockets[0].getsockname()[1]
    sys.stdout.write(f"PORT {port}\n")
    sys.stdout.flush()
    await task


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", default="stdio", choices=["stdio", "http", "sse"])
    parser.add_argument("--startup-delay", type=float, default=0.0)
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--name", default="testsrv")
    args = parser.parse_args()
    starts = os.environ.get("MCP_TEST_STARTS")
    if starts:  # one line per start: a reconnect shows as a second line
        with Path(starts).open("a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    time.sleep(args.startup_delay)
    server = build(args.name, args.tools)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        asyncio.run(serve_http(server, args.transport))


if __name__ == "__main__":
    main()
