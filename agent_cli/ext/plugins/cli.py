"""`agent plugin ...`: marketplaces (add, list, update, remove) and plugins (install, list,
enable, disable, update, uninstall), and `agent plugin eval` when the eval part is there."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Literal

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded
from agent_cli.core.errors import AgentError, UsageError
from agent_cli.core.text.counts import counted
from agent_cli.ext.plugins import consent, markets, python_form
from agent_cli.ext.plugins.store import Store, find, set_enabled, settings_file

Scope = Literal["user", "project"]
SCOPE = typer.Option("user", "--scope", "-s", help="user (your settings) or project "
                     "(the workspace's .agent/settings.json, shared with your team).")  # fmt: skip
YES = typer.Option(False, "--yes", "-y", help="Agree to what it runs without asking (scripts).")
AS_JSON = typer.Option(False, "--json", help="One JSON array.")

plugin_app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None)
market_app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None)
plugin_app.add_typer(market_app, name="marketplace", help="Add, list, update, remove marketplaces.")


def _warn(lines: list[str]) -> None:
    for line in lines:
        sys.stderr.write(f"warning: {line}\n")


def _workspace(workspace: Path) -> Path:
    from agent_cli.runtime.build import resolve_workspace

    return resolve_workspace(workspace)


# ---- marketplaces


@market_app.command("add")
@guarded
def market_add(
    source: str = typer.Argument(..., help="A folder, a git URL, or owner/repo (GitHub)."),
) -> None:
    """Add a marketplace: a folder (read where it is) or a git repository (cloned)."""
    added = markets.add(Store(), source, Path.cwd())
    _warn(added.warnings)
    how = "linked folder" if added.market.kind == "folder" else "cloned"
    typer.echo(f"added marketplace {added.market.name} ({how}, {counted(added.plugins, 'plugin')})")


@market_app.command("list")
@guarded
def market_list(as_json: bool = AS_JSON) -> None:
    """The marketplaces added, with where each comes from."""
    found = list(Store().read().marketplaces.values())
    if as_json:
        typer.echo(json.dumps([m.model_dump() for m in found], indent=2))
        return
    for market in found:
        typer.echo(f"{market.name}  {market.kind}  {market.source}  {market.path}")
    if not found:
        typer.echo("No marketplaces: `agent plugin marketplace add SOURCE`.")


@market_app.command("update")
@guarded
def market_update(name: str = typer.Argument("", help="One marketplace (default: all).")) -> None:
    """Bring git marketplaces to what their remote has (a folder is read where it is)."""
    store = Store()
    chosen = [markets.known(store, name)] if name else list(store.read().marketplaces.values())
    for market in chosen:
        typer.echo(markets.update(store, market))


@market_app.command("remove")
@guarded
def market_remove(name: str = typer.Argument(..., help="The marketplace's name.")) -> None:
    """Remove a marketplace (its installed plugins stay installed)."""
    kept = markets.remove(Store(), name)
    typer.echo(f"removed marketplace {name}")
    if kept:
        typer.echo(f"still installed from it: {', '.join(kept)} (`agent plugin uninstall`)")


# ---- plugins


@plugin_app.command("install")
@guarded
def install(
    target: str = typer.Argument(..., help="name@marketplace, or a plugin folder."),
    scope: Scope = SCOPE,
    yes: bool = YES,
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Install a plugin, show what it runs and ask once, and enable it in the scope."""
    from agent_cli.ext.plugins.installing import discard, found_plugin, make_copy

    store, root = Store(), _workspace(workspace)
    with store.lock(), found_plugin(store, target, Path.cwd()) as found:
        index = store.read()
        if (had := index.installed.get(f"{found.name}@{found.marketplace}")) is not None:
            _enable(store, had.key, scope, root, yes)
            typer.echo(f"{had.key} is already installed ({had.version}); enabled ({scope})")
            _pending(scope, root)
            return
        copy = make_copy(store, found)
        _warn(found.warnings)
        typer.echo(f"plugin {copy.item.key} ({copy.item.version}) will run:")
        typer.echo("\n".join(consent.shown(copy.runs)))
        try:
            consent.ask(f"Install {copy.item.key}?", yes, f"{copy.item.key} not installed")
            if copy.package is not None:
                python_form.install(Path(copy.item.path), store.root)
        except BaseException:
            discard(copy)
            raise
        index.installed[copy.item.key] = copy.item
        index.consents[copy.item.key] = copy.runs.consent()
        store.write(index)
    set_enabled(settings_file(scope, root), copy.item.key, True)
    typer.echo(f"installed {copy.item.key} ({copy.item.version}); enabled ({scope})")
    _pending(scope, root)


@plugin_app.command("update")
@guarded
def update(
    name: str = typer.Argument("", help="One plugin (default: all installed)."),
    yes: bool = YES,
) -> None:
    """Update installed plugins from where they came; a change in what one runs asks again."""
    from agent_cli.ext.plugins.installing import update_one

    store, pulled = Store(), set[str]()
    index = store.read()
    if name:
        typer.echo(update_one(store, find(index, name), yes, pulled, typer.echo))
        return
    if not index.installed:
        typer.echo("No plugins installed.")
    failed = 0
    for item in index.installed.values():  # one that cannot update leaves the others to do so
        try:
            typer.echo(update_one(store, item, yes, pulled, typer.echo))
        except AgentError as e:
            sys.stderr.write(f"agent: {e}\n")
            failed = max(failed, e.exit_code)
    if failed:
        raise typer.Exit(failed)


@plugin_app.command("uninstall")
@guarded
def uninstall(
    name: str = typer.Argument(..., help="name@marketplace (or name)."),
    keep_data: bool = typer.Option(False, "--keep-data", help="Keep its data folder."),
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Remove a plugin: its copies, its settings entries (yours and this workspace's), what
    you agreed to, and its data folder."""
    import shutil

    store, root = Store(), _workspace(workspace)
    with store.lock():
        index = store.read()
        item = find(index, name)
        if item.kind == "python" and item.dist:
            python_form.uninstall(item.dist, store.root)
        store.remove_plugin(item.marketplace, item.name)
        del index.installed[item.key]
        index.consents.pop(item.key, None)
        store.write(index)
        if not keep_data:
            shutil.rmtree(store.data_dir(item.key), ignore_errors=True)
    for scope in ("user", "project"):
        set_enabled(settings_file(scope, root), item.key, None)
    typer.echo(f"uninstalled {item.key}")


def _enable(store: Store, key: str, scope: str, root: Path, yes: bool) -> None:
    """Enabled in the scope, once what it runs now is agreed to (asked again if it changed)."""
    from agent_cli.ext.plugins.source import load_installed

    index = store.read()
    item = find(index, key)
    if item.kind == "bundle":
        runs = load_installed(item, store).runs
        if not consent.agreed(index.consents.get(item.key), runs):
            typer.echo(f"plugin {item.key}: what it runs changed since you agreed:")
            typer.echo("\n".join(consent.difference(index.consents.get(item.key), runs)))
            consent.ask(f"Enable {item.key}?", yes, f"{item.key} not enabled")
            index.consents[item.key] = runs.consent()
            store.write(index)
    set_enabled(settings_file(scope, root), item.key, True)


def _pending(scope: str, root: Path) -> None:
    from agent_cli.policy.trust import TrustStore

    if scope == "project" and not TrustStore().is_trusted(root):
        typer.echo("this workspace is not trusted: its plugins apply once you run `agent trust`")


@plugin_app.command("enable")
@guarded
def enable(
    name: str = typer.Argument(..., help="name@marketplace (or name)."),
    scope: Scope = SCOPE,
    yes: bool = YES,
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Enable an installed plugin in the scope."""
    store = Store()
    with store.lock():
        key = find(store.read(), name).key
        _enable(store, key, scope, root := _workspace(workspace), yes)
    typer.echo(f"enabled {key} ({scope})")
    _pending(scope, root)


@plugin_app.command("disable")
@guarded
def disable(
    name: str = typer.Argument(..., help="name@marketplace (or name)."),
    scope: Scope = SCOPE,
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Disable a plugin in the scope (it stays installed)."""
    item = find(Store().read(), name)
    if item.kind == "python":
        raise UsageError(f"{item.key} is a Python package: it loads while installed; uninstall it")
    set_enabled(settings_file(scope, _workspace(workspace)), item.key, False)
    typer.echo(f"disabled {item.key} ({scope})")


@plugin_app.command("list")
@guarded
def list_plugins(as_json: bool = AS_JSON, workspace: Path = opt.WORKSPACE) -> None:
    """Installed plugins and the ones the settings enable: state, scope, version, source."""
    from agent_cli.ext.plugins.source import rows, text_lines

    found = rows(Store(), _workspace(workspace))
    if as_json:
        typer.echo(json.dumps(found, indent=2))
        return
    typer.echo("\n".join(text_lines(found)) if found else "No plugins installed.")


if importlib.util.find_spec("agent_cli.ext.plugins.evaluate") is not None:  # the eval part
    importlib.import_module("agent_cli.ext.plugins.evaluate").register(plugin_app)
