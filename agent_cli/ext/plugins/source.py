"""The port "plugin_bundles": the installed plugins enabled for this workspace and run, each
loaded only while what it runs is what the user agreed to.

Enabled means the run's `plugins.enabled` (the user's settings, and the workspace's once it is
trusted: the settings code drops an untrusted workspace's section), then `AGENT_PLUGINS_ON`
(`name@marketplace`, installed ones, enabled for this run) and `AGENT_PLUGINS_OFF` (names, or
`*`: left out of this run), as `agent plugin eval` runs with and without one."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.core.errors import AgentError
from agent_cli.ext.plugins.consent import Runs, agreed, runs_of
from agent_cli.ext.plugins.store import (
    Index,
    Installed,
    PluginsSettings,
    Store,
    enabled_in,
    settings_file,
)
from agent_cli.runtime.bundles import Bundle, BundleScope

if TYPE_CHECKING:
    from agent_cli.ext.plugins.marketplace import Entry
    from agent_cli.runtime.extensions.contract import ExtensionContext

log = logging.getLogger(__name__)
_SAID: set[str] = set()  # a run says each problem once
_READ: dict[tuple[object, ...], PluginBundles] = {}

ENV_ON = "AGENT_PLUGINS_ON"
ENV_OFF = "AGENT_PLUGINS_OFF"


@dataclass
class LoadedPlugin:
    """One installed plugin read from its copy: the bundle, what it runs, its warnings."""

    item: Installed
    bundle: Bundle
    runs: Runs
    warnings: list[str] = field(default_factory=list)


def load_installed(item: Installed, store: Store, scope: BundleScope = "user") -> LoadedPlugin:
    from agent_cli.ext.plugins.components import load_bundle
    from agent_cli.ext.plugins.runs import what_it_runs

    root, data = Path(item.path), store.data_dir(item.key)
    entry = entry_from(item.entry) if item.entry is not None else None
    bundle, warnings = load_bundle(
        root, name=item.name, entry=entry, source=item.key, scope=scope, data=data
    )
    runs = runs_of(what_it_runs(bundle, expand=False), root, data)
    return LoadedPlugin(item, bundle, runs, list(warnings))


def entry_from(raw: dict[str, Any]) -> Entry:
    """The marketplace entry kept with an installed plugin, as the loader reads one (its
    source already fetched: none)."""
    from agent_cli.ext.plugins.manifest import COMPONENT_KEYS
    from agent_cli.ext.plugins.marketplace import Entry

    version, strict = raw.get("version"), raw.get("strict", True)
    return Entry(
        name=str(raw.get("name", "")),
        source=None,
        version=str(version) if isinstance(version, str | int | float) else "",
        description=str(raw.get("description") or ""),
        strict=strict if isinstance(strict, bool) else True,
        components={k: raw[k] for k in COMPONENT_KEYS if raw.get(k) is not None},
        fields=raw,
    )


def _names(text: str) -> set[str]:
    return {part.strip() for part in text.split(",") if part.strip()}


def wanted(enabled: Mapping[str, bool], environ: Mapping[str, str]) -> dict[str, BundleScope]:
    """key -> scope of every plugin this run enables: the settings', then the variables'.
    Those the user's settings switch on are "user" scope, the others the workspace's."""
    user = enabled_in(settings_file("user", Path()))
    found: dict[str, BundleScope] = {
        key: "user" if user.get(key) else "project" for key, on in enabled.items() if on
    }
    for key in _names(environ.get(ENV_ON, "")):
        found.setdefault(key, "session")
    off = _names(environ.get(ENV_OFF, ""))
    if "*" in off:
        return {}
    return {k: s for k, s in found.items() if k not in off and k.split("@")[0] not in off}


class PluginBundles:
    """The BundleSource the port answers: read once, when first asked."""

    def __init__(
        self,
        enabled: Mapping[str, bool],
        environ: Mapping[str, str],
        store: Store | None = None,
        say: bool = False,
    ) -> None:
        self._enabled = dict(enabled)
        self._environ = environ
        self._store = store or Store()
        self._bundles: list[Bundle] | None = None
        self._warnings: list[str] = []
        self._say = say  # a session's: its problems go to the log (and stderr), once a run

    def bundles(self) -> Sequence[Bundle]:
        if self._bundles is None:
            self._bundles = self._read()
            for line in self._warnings if self._say else ():
                if line not in _SAID:  # each asker (project files, MCP, LSP) has its own
                    _SAID.add(line)
                    log.warning("%s", line)
        return tuple(self._bundles)

    def warnings(self) -> Sequence[str]:
        self.bundles()
        return tuple(self._warnings)

    def _read(self) -> list[Bundle]:
        try:
            index = self._store.read()
        except AgentError as e:
            self._warnings.append(f"plugins: {e}")
            return []
        found: list[Bundle] = []
        for key, scope in wanted(self._enabled, self._environ).items():
            bundle = self._one(index, key, scope)
            if bundle is not None:
                found.append(bundle)
        return found

    def _one(self, index: Index, key: str, scope: BundleScope) -> Bundle | None:
        item = index.installed.get(key)
        if item is None:
            self._warnings.append(
                f"plugin {key}: enabled but not installed: `agent plugin install {key}`"
            )
            return None
        if item.kind == "python":
            return None  # a package: the entry-point discovery loads it
        try:
            loaded = load_installed(item, self._store, scope)
        except (OSError, ValueError) as e:
            self._warnings.append(f"plugin {key}: {item.path}: cannot be read ({e})")
            return None
        self._warnings += loaded.warnings
        if not agreed(index.consents.get(key), loaded.runs):
            self._warnings.append(
                f"plugin {key}: what it runs changed since you agreed; not loaded: "
                f"`agent plugin update {key}` or `agent plugin enable {key}` to review it"
            )
            return None
        loaded.bundle.data.mkdir(parents=True, exist_ok=True)  # its hooks and servers write there
        return loaded.bundle


def bundle_source(context: ExtensionContext) -> PluginBundles:
    """A session's (a listing's context has no session id: it prints the warnings itself).
    The askers of one run (project files, MCP, language servers) share one reading while the
    enabling and the store are unchanged: each reading checks every file consent names."""
    enabled = context.section(PluginsSettings).enabled
    store = Store()
    try:
        stamp = store.file.stat().st_mtime_ns
    except OSError:
        stamp = 0
    key = (tuple(sorted(enabled.items())), os.environ.get(ENV_ON), os.environ.get(ENV_OFF), stamp)
    say = bool(context.session_id)
    if (made := _READ.get((*key, say))) is None:
        made = _READ[(*key, say)] = PluginBundles(enabled, os.environ, store, say=say)
    return made


# ---- `agent plugin list`: each plugin's state in this workspace


def rows(store: Store, workspace: Path) -> list[dict[str, Any]]:
    """One row per plugin installed or named by a settings file: its state here
    (enabled, disabled, pending trust, changed since agreed, not installed)."""
    from agent_cli.policy.trust import TrustStore

    index = store.read()
    user = enabled_in(settings_file("user", workspace))
    project = enabled_in(settings_file("project", workspace))
    trusted = TrustStore().is_trusted(workspace)
    found = []
    for key in sorted({*index.installed, *user, *project}):
        item = index.installed.get(key)
        row: dict[str, Any] = {"key": key, "user": user.get(key), "project": project.get(key)}
        on = project[key] if key in project and trusted else user.get(key, False)
        row["state"] = _state(index, store, key, on)
        if not on and project.get(key) and not trusted:
            row["state"] = "pending trust (the workspace enables it: `agent trust`)"
        if item is not None:
            row.update(version=item.version, kind=item.kind, source=item.source, path=item.path)
        found.append(row)
    return found


def _state(index: Index, store: Store, key: str, on: bool) -> str:
    item = index.installed.get(key)
    if item is None:
        return f"not installed (`agent plugin install {key}`)" if on else "not installed"
    if item.kind == "python":
        return "installed (a Python package: loads while installed)"
    if not on:
        return "disabled"
    try:
        loaded = load_installed(item, store)
    except (OSError, ValueError) as e:
        return f"cannot be read ({e})"
    if not agreed(index.consents.get(key), loaded.runs):
        return f"changed since you agreed (`agent plugin enable {key}`)"
    return "enabled"


def text_lines(found: list[dict[str, Any]]) -> list[str]:
    lines = []
    for row in found:
        scopes = [s for s in ("user", "project") if row.get(s) is not None]
        said = ", ".join(f"{s}: {'on' if row[s] else 'off'}" for s in scopes) or "no setting"
        version = f" {row['version']}" if row.get("version") else ""
        lines.append(f"{row['key']}{version}  {row['state']}  ({said})")
    return lines
