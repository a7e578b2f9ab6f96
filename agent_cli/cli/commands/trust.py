"""`agent trust [--revoke] [--list]`: let this workspace's own files widen what runs unasked."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded


@guarded
def trust(
    revoke: bool = typer.Option(False, "--revoke", help="Stop trusting this workspace."),
    list_all: bool = typer.Option(False, "--list", help="List every trusted workspace."),
    as_json: bool = typer.Option(False, "--json", help="With --list: one JSON array."),
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Trust the workspace: its hooks, allow rules, permission mode, MCP servers and commands'
    allowed tools take effect. Deny rules always apply, trusted or not."""
    from agent_cli.ext.project_files.catalog import project_trust_items
    from agent_cli.ext.project_files.trust_items import widening_items
    from agent_cli.policy.trust import TrustStore, grant_items
    from agent_cli.runtime.build import resolve_workspace

    store = TrustStore()
    if list_all:
        grants = store.trusted()
        if as_json:
            rows = [{"workspace": k, "trusted_at": g.trusted_at} for k, g in grants.items()]
            typer.echo(json.dumps(rows, indent=2))
        for path, grant in grants.items():
            if not as_json:
                typer.echo(f"{grant.trusted_at}  {path}")
        return
    root = resolve_workspace(workspace)
    if revoke:
        removed = store.revoke(root)
        typer.echo(f"{'no longer trusted' if removed else 'was not trusted'}: {root}")
        return
    items = widening_items(root, [project_trust_items])
    store.trust(root, grant_items(items))
    typer.echo(f"trusted: {root}")
    for item in items:
        typer.echo(f"  {item.description}  ({Path(item.source).name})")
    if not items:
        typer.echo("  (it asks for nothing that needs trust today)")
