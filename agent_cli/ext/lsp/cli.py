"""`agent lsp status [--json]`: the language servers this workspace's edits would be checked
by, and why one would not start (its command is not found). Nothing is started."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded

lsp_app = typer.Typer(
    help="The language servers that check edits: status.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


@lsp_app.callback()
def _group() -> None:
    """The language servers that check edits (a group, though it has one command)."""


@lsp_app.command("status")
@guarded
def status(
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Configured servers (settings, trusted workspace entries) and built-ins on PATH."""
    from agent_cli.core.options import Options
    from agent_cli.ext.lsp.manager import LspManager
    from agent_cli.ext.lsp.plugins import plugin_servers
    from agent_cli.ext.lsp.server import NotRunnable, resolve
    from agent_cli.ext.lsp.settings import lsp_settings
    from agent_cli.policy.trust import TrustStore
    from agent_cli.runtime.build import load, resolve_workspace
    from agent_cli.runtime.extensions.bundle_port import workspace_bundles

    options = Options(workspace=resolve_workspace(workspace))
    settings, _ = load(options)  # an untrusted workspace's own servers are dropped, and said
    trusted = TrustStore().is_trusted(options.workspace)
    bundles = workspace_bundles(options.workspace, "lsp")
    for line in bundles.warnings():
        typer.echo(f"warning: {line}", err=True)
    plugins = plugin_servers(bundles.bundles())
    manager = LspManager(lsp_settings(settings), options.workspace, lambda: trusted, plugins)
    rows = manager.rows()
    for row in rows:
        if row.state == "not started":
            try:  # why it would not start: the same lookup a start makes
                resolve(row.command.split(), options.workspace, options.workspace, trusted)
            except NotRunnable as e:
                row.last_error = str(e)
    if as_json:
        typer.echo(json.dumps([asdict(row) for row in rows], indent=2))
        return
    if not lsp_settings(settings).enabled:
        typer.echo("Language servers are off (lsp.enabled: false).")
    if not rows:
        typer.echo("No language server is configured or on PATH (settings: lsp.servers).")
    for row in rows:
        error = f"  ({row.last_error})" if row.last_error else ""
        where = f"  [{row.source}]" if row.source.startswith("plugin ") else ""
        typer.echo(f"{row.name}  {row.extensions}  `{row.command}`{where}{error}")
