"""Installing, updating and removing a plugin: its folder found (a marketplace entry's, or a
folder of the user's), copied into the store under a new version folder, what it runs shown
and agreed to, then the index swapped to it; a Python plugin also pip-installed."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.core.errors import AgentError, UsageError
from agent_cli.ext.plugins import consent, python_form
from agent_cli.ext.plugins.fetching import OWNER_REPO, clone, copy_folder, digest, pull
from agent_cli.ext.plugins.markets import entry_of, known, market_catalog
from agent_cli.ext.plugins.source import LoadedPlugin, load_installed
from agent_cli.ext.plugins.store import LOCAL, Installed, Store, now

if TYPE_CHECKING:
    from agent_cli.ext.plugins.marketplace import Catalog, Entry

Say = Callable[[str], None]


@dataclass
class Found:
    """A plugin's folder as it is now, before it is copied."""

    name: str
    marketplace: str
    folder: Path
    source: str
    entry: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)


@contextlib.contextmanager
def found_plugin(store: Store, target: str, base: Path) -> Iterator[Found]:
    """TARGET as `install` takes it: `name@marketplace`, `name` (one marketplace has it), or
    a plugin folder (`name@local`). A fetched folder lives as long as the block."""
    folder = (base / target).expanduser()
    if folder.is_dir():
        folder = folder.resolve()
        package = python_form.package(folder)
        name = package.dist if package is not None else _folder_name(folder)
        yield Found(name, LOCAL, folder, str(folder))
        return
    name, _, market = target.partition("@")
    if not name:
        raise UsageError(f"{target}: give name@marketplace or a plugin folder")
    market = market or _only_market(store, name)
    if market == LOCAL:
        raise UsageError(f"{target}: a local plugin is installed from its folder's path")
    with _from_market(store, name, market) as found:
        yield found


def _folder_name(folder: Path) -> str:
    from agent_cli.ext.plugins.components import load_bundle

    bundle, _ = load_bundle(folder, source=str(folder), scope="user", data=folder)
    return bundle.name


def _only_market(store: Store, name: str) -> str:
    index = store.read()
    having = []
    for market in index.marketplaces.values():
        with contextlib.suppress(AgentError):
            catalog = market_catalog(market)
            if any(entry.name == name for entry in catalog.entries):
                having.append(market.name)
    if len(having) == 1:
        return having[0]
    if having:
        raise UsageError(f"'{name}' is in several marketplaces ({', '.join(having)}): name one")
    raise UsageError(f"no marketplace has a plugin '{name}' (see `agent plugin marketplace list`)")


@contextlib.contextmanager
def _from_market(store: Store, name: str, market_name: str) -> Iterator[Found]:
    market = known(store, market_name)
    catalog = market_catalog(market)
    entry = entry_of(catalog, name, market_name)
    with _entry_folder(entry, catalog, store) as (folder, where):
        yield Found(name, market_name, folder, where, dict(entry.fields), list(catalog.warnings))


@contextlib.contextmanager
def _entry_folder(entry: Entry, catalog: Catalog, store: Store) -> Iterator[tuple[Path, str]]:
    """The entry's plugin folder: inside the marketplace, or a git repository cloned (a
    sub-folder of it for `git-subdir`) into a folder removed after the block."""
    from agent_cli.ext.plugins.marketplace import GitHubSource, GitSubdirSource, RelativeSource

    source = entry.source
    if source is None:
        why = [
            w for w in catalog.warnings if w.endswith(f": {entry.name}") or f": {entry.name}:" in w
        ]
        raise UsageError(why[0] if why else f"plugin {entry.name}: its source cannot be used")
    if isinstance(source, RelativeSource):
        if not source.path.is_dir():
            raise UsageError(f"plugin {entry.name}: its source {source.written} is not a folder")
        yield source.path, f"{source.written} in {catalog.name}"
        return
    if isinstance(source, GitHubSource):
        url, subdir = f"https://github.com/{source.repo}.git", ""
    else:
        url, subdir = source.url, source.path or ""
        if isinstance(source, GitSubdirSource) and OWNER_REPO.match(url):
            url = f"https://github.com/{url}.git"
    work = Path(tempfile.mkdtemp(dir=_scratch(store), prefix="fetch-"))
    try:
        clone(url, work / "repo", source.ref or "", source.sha or "")
        folder = (work / "repo" / (subdir or ".")).resolve()
        if not folder.is_relative_to((work / "repo").resolve()) or not folder.is_dir():
            raise UsageError(f"plugin {entry.name}: {subdir} is not a folder of {url}")
        yield folder, url + (f" {subdir}" if subdir else "")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _scratch(store: Store) -> Path:
    folder = store.root / "tmp"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# ---- a copy in the store


@dataclass
class Copy:
    item: Installed
    loaded: LoadedPlugin | None  # None for a Python plugin
    runs: consent.Runs
    fresh: bool  # made now (removed again when the user says no)
    package: python_form.Package | None = None


def make_copy(store: Store, found: Found) -> Copy:
    """The folder copied to `installed/<marketplace>/<name>/<version>-<digest>/` (kept when
    that copy is already there) and read from there."""
    package = python_form.package(found.folder)
    version = package.version if package is not None else _bundle_version(found)
    label = f"{version or 'unknown'}-{digest(found.folder)}".replace("/", "_")
    place = store.plugin_dir(found.marketplace, found.name) / label
    fresh = not place.is_dir()
    if fresh:
        found.warnings += [f"plugin {found.name}: {w}" for w in copy_folder(found.folder, place)]
    item = Installed(
        name=found.name,
        marketplace=found.marketplace,
        version=label,
        path=str(place),
        source=found.source,
        kind="python" if package else "bundle",
        dist=package.dist if package else "",
        entry=found.entry,
        installed_at=now(),
    )
    if package is not None:
        runs = consent.runs_of(python_form.runs(package), place, store.data_dir(item.key))
        return Copy(item, None, runs, fresh, package)
    loaded = load_installed(item, store)
    found.warnings += loaded.warnings
    return Copy(item, loaded, loaded.runs, fresh)


def _bundle_version(found: Found) -> str:
    from agent_cli.ext.plugins.components import load_bundle

    bundle, _ = load_bundle(
        found.folder, name=found.name, source=found.source, scope="user", data=found.folder
    )
    return bundle.version


def discard(copy: Copy) -> None:
    if copy.fresh:
        shutil.rmtree(copy.item.path, ignore_errors=True)


def refresh_market(store: Store, market_name: str, done: set[str], say: Say) -> None:
    """A git marketplace pulled once per command, before its plugins are updated."""
    if market_name == LOCAL or market_name in done:
        return
    done.add(market_name)
    market = store.read().marketplaces.get(market_name)
    if market is None:
        raise UsageError(f"marketplace '{market_name}' was removed; its plugins cannot update")
    if market.kind == "git":
        with store.lock():
            before, after = pull(Path(market.path))
        if before != after:
            say(f"marketplace {market_name}: {before[:12]} -> {after[:12]}")


def update_one(store: Store, item: Installed, yes: bool, pulled: set[str], say: Say) -> str:
    """The plugin brought to what its source has now; one line saying what happened. A new
    copy whose runs differ from the consent is shown and asked for again; refused, the old
    copy stays."""
    refresh_market(store, item.marketplace, pulled, say)
    target = item.source if item.marketplace == LOCAL else item.key
    if item.marketplace == LOCAL and not Path(item.source).is_dir():
        raise UsageError(f"{item.key}: its folder {item.source} is gone; nothing to update from")
    with store.lock(), found_plugin(store, target, Path.cwd()) as found:
        found.name = item.name
        copy = make_copy(store, found)
        if copy.item.version == item.version:
            return f"{item.key}: up to date ({item.version})"
        index = store.read()
        agreed_to = index.consents.get(item.key)
        try:
            if not consent.agreed(agreed_to, copy.runs):
                say(f"plugin {item.key}: what it runs changes:")
                say("\n".join(consent.difference(agreed_to, copy.runs)))
                consent.ask(f"Update {item.key}?", yes, f"{item.key} not updated")
            if copy.package is not None:
                python_form.install(Path(copy.item.path), store.root)
        except BaseException:
            discard(copy)
            raise
        index.installed[item.key] = copy.item
        index.consents[item.key] = copy.runs.consent()
        store.write(index)
        store.keep_two(item.marketplace, item.name, copy.item.version, item.version)
    for line in found.warnings:
        say(f"warning: {line}")
    return f"{item.key}: {item.version} -> {copy.item.version}"
