"""The settings as a run reads them: with the sections (and the narrowing of an untrusted
workspace's) of the extensions its settings, workspace and command ask for. For the commands
that read settings outside a run (listings), and for tests."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.core.settings.schema import Settings, layer_keys, load_settings, parse_settings
from agent_cli.runtime.extensions.discovery import EVERYTHING, Asking

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.registry import Extensions


def read_settings(
    workspace: Path,
    overrides: dict[str, Any] | None = None,
    *,
    trusted: bool = False,
    command: str = "",
    extensions: Extensions | None = None,
) -> Settings:
    """`load_settings` with the sections of `extensions` (default: those asked for)."""
    if extensions is None:
        from agent_cli.runtime.extensions.registry import discover

        extensions = discover(asking=Asking(layer_keys(workspace, overrides), workspace, command))
    return load_settings(
        workspace,
        overrides,
        trusted=trusted,
        sections=extensions.sections(),
        ignored=extensions.ignored(),
        narrowers=extensions.narrowers(),
    )


def parse_all(data: dict[str, Any], source: str = "settings") -> Settings:
    """`data` read as settings with every extension's section."""
    from agent_cli.runtime.extensions.registry import discover

    return parse_settings(data, source, discover(asking=EVERYTHING).sections())
