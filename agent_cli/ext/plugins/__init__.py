"""Plugins: Claude Code plugin bundles installed from marketplaces (or a folder), enabled per
user or per workspace, and answered through the port "plugin_bundles" to the extensions that
use what they bring (project files, MCP, language servers); `agent plugin ...` manages them.

The store lives under the user's config folder (store.py); nothing of a plugin loads unless
what it runs is what the user agreed to (consent.py). Loading this costs this module and the
settings model: each contribution imports its code when it is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.ext.plugins.store import PluginsSettings
from agent_cli.runtime.bundles import PORT
from agent_cli.runtime.extensions.contract import Extension, ExtensionContext

if TYPE_CHECKING:
    import typer

ABOUT = "Install, enable and update plugins and their marketplaces."


def _bundles(context: ExtensionContext) -> object:
    from agent_cli.ext.plugins.source import bundle_source

    return bundle_source(context)


def _cli() -> typer.Typer:
    import typer

    from agent_cli.ext.plugins.cli import plugin_app

    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.add_typer(plugin_app, name="plugin", help=ABOUT)
    return app


EXTENSION = Extension(
    name="plugins",
    about="Plugins (Claude Code bundles) from marketplaces: `agent plugin`.",
    settings=PluginsSettings,
    requires=("batch",),  # `agent plugin eval` runs each case as a batch task
    ports={PORT: _bundles},
    cli=_cli,
)

__all__ = ["EXTENSION", "PluginsSettings"]
