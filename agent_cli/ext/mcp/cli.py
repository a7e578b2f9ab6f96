"""`agent mcp add/remove/get/list`: configure MCP servers and see how they are doing."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.commands.serving import mcp_serve
from agent_cli.cli.common import guarded
from agent_cli.core.errors import UsageError
from agent_cli.core.text.counts import counted

if TYPE_CHECKING:
    from agent_cli.ext.mcp.manager import ServerStatus

mcp_app = typer.Typer(
    help="Add, remove, list and inspect MCP servers.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
mcp_app.command("serve", help="Serve this agent to other agents as an MCP server (stdio).")(
    mcp_serve
)
Scope = Literal["user", "project"]
TARGET = typer.Argument(..., help="-- COMMAND ARGS... (stdio), or the URL.")
ENV = typer.Option([], "--env", "-e", help="KEY=VALUE for a stdio server.")
HEADER = typer.Option([], "--header", "-H", help="KEY:VALUE for an HTTP server.")
SCOPE = typer.Option("user", "--scope", "-s", help="user (mcp.json) or project (.mcp.json).")


def _file(scope: Scope, workspace: Path) -> Path:
    from agent_cli.ext.mcp.servers import PROJECT_FILE, user_file
    from agent_cli.runtime.build import resolve_workspace

    return user_file() if scope == "user" else resolve_workspace(workspace) / PROJECT_FILE


def _pairs(items: list[str], sep: str, flag: str) -> dict[str, str]:
    pairs = {}
    for item in items:
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            raise UsageError(f"{flag} {item!r}: expected KEY{sep}VALUE")
        pairs[key.strip()] = value.strip() if sep == ":" else value
    return pairs


@mcp_app.command("add")
@guarded
def add(
    name: str = typer.Argument(..., help="The server's name (tools become mcp__NAME__tool)."),
    target: list[str] = TARGET,
    transport: Literal["stdio", "http", "sse"] = typer.Option("stdio", "--transport", "-t"),
    env: list[str] = ENV,
    header: list[str] = HEADER,
    scope: Scope = SCOPE,
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Add a server: `agent mcp add NAME -- CMD ARGS…` or `agent mcp add -t http NAME URL`."""
    from pydantic import ValidationError

    from agent_cli.ext.mcp.settings import McpServerSpec
    from agent_cli.ext.mcp.user_config import add_server

    data: dict[str, object] = {"type": transport}
    if transport == "stdio":
        data.update(command=target[0], args=target[1:], env=_pairs(env, "=", "--env"))
    elif len(target) != 1:
        raise UsageError(f"an {transport} server takes one URL, got: {' '.join(target)}")
    else:
        data.update(url=target[0], headers=_pairs(header, ":", "--header"))
    try:
        spec = McpServerSpec.model_validate(data)
    except ValidationError as e:
        raise UsageError(f"server {name}: {e.errors()[0]['msg']}") from None
    path = _file(scope, workspace)
    replaced = add_server(path, name, spec)
    typer.echo(f"{'replaced' if replaced else 'added'} {name} in {path}: {spec.launch_line()}")


@mcp_app.command("remove")
@guarded
def remove(
    name: str = typer.Argument(...),
    scope: Scope = SCOPE,
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Remove a server that `agent mcp add` added."""
    from agent_cli.ext.mcp.user_config import remove_server

    path = _file(scope, workspace)
    if not remove_server(path, name):
        raise UsageError(f"no server named {name!r} in {path}")
    typer.echo(f"removed {name} from {path}")


def _statuses(workspace: Path, only: str | None) -> list[ServerStatus]:
    """Starts the runnable servers (a project's only if trusted), waits, and stops them."""
    import asyncio

    from agent_cli.core.options import Options
    from agent_cli.ext.mcp.setup import build_manager
    from agent_cli.runtime.build import load, resolve_workspace
    from agent_cli.runtime.extensions.bundle_port import workspace_bundles

    root = resolve_workspace(workspace)
    settings, paths = load(Options(workspace=root))
    bundles = workspace_bundles(root, "mcp")
    for line in bundles.warnings():
        typer.echo(f"warning: {line}", err=True)
    manager = build_manager(settings, root, paths.logs, bundles=bundles.bundles())
    if only is not None:
        if only not in manager.entries and only not in manager.blocked:
            raise UsageError(f"no MCP server named {only!r}; see `agent mcp list`")
        manager.entries = {k: v for k, v in manager.entries.items() if k == only}
        manager.blocked = {k: v for k, v in manager.blocked.items() if k == only}

    async def probe() -> list[ServerStatus]:
        try:
            manager.start()
            await manager.wait_started()
            return manager.status()
        finally:
            await manager.aclose()

    return asyncio.run(probe())


@mcp_app.command("list")
@guarded
def list_servers(
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Every configured server: source, state, tools, last error."""
    statuses = _statuses(workspace, None)
    if as_json:
        typer.echo(json.dumps([asdict(s) for s in statuses], indent=2))
        return
    for s in statuses:
        typer.echo(f"{s.name}  {s.state}  {counted(len(s.tools), 'tool')}  ({s.source})")
        if s.error:
            typer.echo(f"  error: {s.error}")
    if not statuses:
        typer.echo("No MCP servers configured (see `agent mcp add --help`).")


@mcp_app.command("get")
@guarded
def get(name: str = typer.Argument(...), workspace: Path = opt.WORKSPACE) -> None:
    """One server: where it is configured, how it is launched, its state and tools."""
    [status] = _statuses(workspace, name)
    typer.echo(f"{status.name}: {status.state}  ({status.source})")
    typer.echo(f"launch: {status.launch}")
    if status.error:
        typer.echo(f"error: {status.error}")
    for tool in status.tools:
        typer.echo(f"  {tool}")
