"""Reaching the port `"plugin_bundles"` (runtime/bundles.py): from an extension's context in a
run, or from a listing command that has no Runtime (`agent commands`, `agent mcp list`,
`agent lsp status`). `NoBundles` when nothing answers.

No built-in is woken for it: the plugins extension is loaded when plugins may be enabled
(asked.py's `plugins`), so a run without any imports nothing of it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from agent_cli.runtime.bundles import PORT, BundleSource, NoBundles

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.discovery import Asking, Declared


def bundles_of(ports: Callable[[str], object | None]) -> BundleSource:
    """What the run's port answers (`ExtensionContext.ports`); NoBundles when none does."""
    found = ports(PORT)
    if callable(getattr(found, "bundles", None)) and callable(getattr(found, "warnings", None)):
        return cast("BundleSource", found)
    return NoBundles()


def workspace_bundles(workspace: Path, command: str) -> BundleSource:
    """The port as a run of `command` in `workspace` would have it: the installed packages'
    extensions and the built-ins this run asks for that provide it, its settings read."""
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.settings.schema import layer_keys
    from agent_cli.policy.trust import TrustStore
    from agent_cli.runtime.extensions.contract import ExtensionContext
    from agent_cli.runtime.extensions.discovery import Asking
    from agent_cli.runtime.extensions.registry import BUILTINS, discover
    from agent_cli.runtime.extensions.settings import read_settings

    asking = Asking(layer_keys(workspace, None), workspace, command)
    extensions = discover(builtins=_providers(BUILTINS), asking=asking)
    if not any(PORT in item.extension.ports for item in extensions.loaded):
        return NoBundles()
    trusted = TrustStore().is_trusted(workspace)
    settings = read_settings(workspace, trusted=trusted, extensions=extensions)
    paths = Paths(workspace)

    def context(name: str) -> ExtensionContext:
        return ExtensionContext(name, workspace, paths, settings, "", ports=port)

    def port(name: str) -> object | None:
        return extensions.port(name, context, wake=False)

    return bundles_of(port)


def _never(_: Asking) -> bool:
    return False


def _providers(builtins: Sequence[Declared]) -> list[Declared]:
    """The built-ins that may answer the port, asked as a run asks them; the others dormant
    (their predicates and commands dropped) but there, so what a provider requires loads: the
    plugins extension requires batch, and without it was skipped, the listings empty."""
    providers = [d for d in builtins if PORT in d.ports or d.name == "plugins"]
    others = [replace(d, asked=_never, commands=()) for d in builtins if d not in providers]
    return [*providers, *others]
