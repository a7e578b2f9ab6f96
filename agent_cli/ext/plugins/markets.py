"""Marketplaces in the store: added from a folder (read where it is: linked, not copied) or a
git repository (cloned under the store), listed, updated (git fetch, then reset to what the
remote has), removed; and where a marketplace entry's plugin folder is."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.errors import UsageError
from agent_cli.core.text.counts import counted
from agent_cli.ext.plugins.fetching import MarketSource, clone, parse_source, pull
from agent_cli.ext.plugins.store import LOCAL, Marketplace, Store, now

if TYPE_CHECKING:
    from agent_cli.ext.plugins.marketplace import Catalog, Entry

CATALOG = ".claude-plugin/marketplace.json"


@dataclass
class Added:
    market: Marketplace
    plugins: int
    warnings: list[str] = field(default_factory=list)


def read_catalog(folder: Path, label: str, origin: str | None = None) -> Catalog:
    """The marketplace at `folder` (`origin`: the git source it was cloned from, which a
    reserved name depends on); a usage error when it has none or it cannot be used."""
    from agent_cli.ext.plugins.marketplace import read_marketplace

    if not (folder / CATALOG).is_file():
        raise UsageError(f"{label}: no {CATALOG} there; not a marketplace")
    catalog = read_marketplace(folder, origin=origin)
    if catalog.problem is not None or not catalog.name:
        raise UsageError(f"{label}: {catalog.problem or f'{CATALOG} has no name'}")
    return catalog


def add(store: Store, text: str, base: Path) -> Added:
    source = parse_source(text, base)
    with store.lock():
        index = store.read()
        if source.kind == "folder":
            catalog = read_catalog(Path(source.where), text)
            market = Marketplace(
                name=catalog.name, source=text, kind="folder", path=source.where, added_at=now()
            )
        else:
            catalog, market = _clone_new(store, source, text)
        if market.name == LOCAL:
            raise UsageError(f"{text}: '{LOCAL}' names plugins installed from a folder; rename it")
        if (had := index.marketplaces.get(market.name)) is not None:
            if market.kind == "git":
                shutil.rmtree(market.path, ignore_errors=True)
            raise UsageError(
                f"a marketplace named '{market.name}' is already added (from {had.source}); "
                f"`agent plugin marketplace remove {market.name}` first"
            )
        if market.kind == "git":
            final = store.marketplace_dir(market.name)
            shutil.rmtree(final, ignore_errors=True)
            Path(market.path).rename(final)
            shutil.rmtree(Path(market.path).parent, ignore_errors=True)
            market.path = str(final)
        index.marketplaces[market.name] = market
        store.write(index)
    return Added(market, len(catalog.entries), list(catalog.warnings))


def _clone_new(store: Store, source: MarketSource, text: str) -> tuple[Catalog, Marketplace]:
    """A clone under the store (named once its catalog is read) and its catalog."""
    parent = store.root / "marketplaces"
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=parent, prefix=".adding-"))
    try:
        clone(source.where, work / "repo")
        catalog = read_catalog(work / "repo", text, origin=source.where)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    market = Marketplace(
        name=catalog.name,
        source=text,
        kind="git",
        url=source.where,
        path=str(work / "repo"),
        added_at=now(),
    )
    return catalog, market


def _cleanup_adding(store: Store) -> None:
    for left in (store.root / "marketplaces").glob(".adding-*"):
        shutil.rmtree(left, ignore_errors=True)


def known(store: Store, name: str) -> Marketplace:
    found = store.read().marketplaces.get(name)
    if found is None:
        raise UsageError(f"no marketplace '{name}' (see `agent plugin marketplace list`)")
    return found


def update(store: Store, market: Marketplace) -> str:
    """One line saying what changed."""
    if market.kind == "folder":
        catalog = read_catalog(Path(market.path), market.source)
        return (
            f"{market.name}: a folder, read where it is ({counted(len(catalog.entries), 'plugin')})"
        )
    with store.lock():
        before, after = pull(Path(market.path))
        index = store.read()
        if market.name in index.marketplaces:
            index.marketplaces[market.name].updated_at = now()
            store.write(index)
        _cleanup_adding(store)
    catalog = market_catalog(market)
    plugins = counted(len(catalog.entries), "plugin")
    if before == after:
        return f"{market.name}: up to date at {after[:12]} ({plugins})"
    return f"{market.name}: {before[:12]} -> {after[:12]} ({plugins})"


def remove(store: Store, name: str) -> list[str]:
    """The marketplace gone (a clone deleted, a linked folder left alone); the keys of the
    plugins installed from it, which stay installed."""
    with store.lock():
        index = store.read()
        market = index.marketplaces.pop(name, None)
        if market is None:
            raise UsageError(f"no marketplace '{name}' (see `agent plugin marketplace list`)")
        if market.kind == "git":
            shutil.rmtree(store.marketplace_dir(name), ignore_errors=True)
        store.write(index)
    return sorted(item.key for item in index.installed.values() if item.marketplace == name)


def market_catalog(market: Marketplace) -> Catalog:
    return read_catalog(Path(market.path), market.source, market.url or None)


def entry_of(catalog: Catalog, name: str, market: str) -> Entry:
    found = [entry for entry in catalog.entries if entry.name == name]
    if not found:
        raise UsageError(f"marketplace '{market}' has no plugin '{name}'")
    return found[0]
