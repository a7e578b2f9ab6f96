"""`agent models`: the endpoint's models, the one in use marked."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded


def cli() -> typer.Typer:
    """The extension's commands, as the registry line names them."""
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command("models", help="The endpoint's models, the one in use marked.")(models)
    return app


@guarded
def models(
    as_json: bool = typer.Option(False, "--json", help="One JSON object."),
    workspace: Path = opt.WORKSPACE,
) -> None:
    from agent_cli.core.options import Options
    from agent_cli.ext.providers.listing import lines, listing
    from agent_cli.runtime.build import load, resolve_workspace

    settings, _ = load(Options(workspace=resolve_workspace(workspace)))
    found = asyncio.run(listing(settings))
    if as_json:
        data = {"provider": settings.provider, "source": found.source, "in_use": found.in_use}
        typer.echo(json.dumps({**data, "models": found.models}))
        return
    typer.echo("\n".join(lines(found, settings)))
