"""Which installed plugin `agent plugin eval NAME` means: `name@marketplace`, read from the
store's folders (`<user config>/plugins/installed/<marketplace>/<name>/<version>/`)."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.core.settings.schema import user_config_dir


def installed_root() -> Path:
    return user_config_dir() / "plugins" / "installed"


def _has_a_copy(folder: Path) -> bool:
    return folder.is_dir() and any(p.is_dir() for p in folder.iterdir())


def installed_as(name: str) -> str:
    """`name@marketplace` of the installed plugin NAME (or NAME@MARKETPLACE); a UsageError
    (exit 2) when it is not installed, or installed from several marketplaces."""
    plugin, _, market = name.partition("@")
    root = installed_root()
    if not plugin or "/" in plugin or "/" in market or plugin.startswith("."):
        raise UsageError(f"plugin {name!r}: not a plugin name (NAME or NAME@MARKETPLACE)")
    markets = [market] if market else sorted(p.name for p in root.glob("*") if p.is_dir())
    found = [m for m in markets if _has_a_copy(root / m / plugin)]
    if not found:
        raise UsageError(f"plugin {name}: not installed (agent plugin install {name})")
    if len(found) > 1:
        choices = ", ".join(f"{plugin}@{m}" for m in found)
        raise UsageError(f"plugin {name}: installed from several marketplaces; say one: {choices}")
    return f"{plugin}@{found[0]}"
