"""What asks for a built-in extension, read from the run's `Asking` before anything of the
extension is imported: a few `stat` calls, never a file's contents."""

# ruff: noqa: PTH110, PTH112, PTH113 - plain os.path: this runs before every run's first request
from __future__ import annotations

import os
from pathlib import Path

from agent_cli.runtime.extensions.discovery import Asking

PROJECT_FOLDERS = (".agent", ".agents", ".claude")  # ext/project_files/sources.py's roots
PROJECT_KINDS = ("commands", "agents", "skills")
CLAUDE_SETTINGS = ("settings.json", "settings.local.json")
PLUGINS_INSTALLED = ("plugins", "installed")  # under user_config_dir(): ext/plugins/store.py's
PLUGINS_ON = "AGENT_PLUGINS_ON"  # installed plugins enabled for one run (`agent plugin eval`)


def plugins(asking: Asking) -> bool:
    """Plugins may be enabled: some are installed, a settings layer has a `plugins` section,
    or the run enables some by name. What the plugins extension, and those that use what
    plugins bring (project files, MCP, language servers), are asked by."""
    from agent_cli.core.settings.schema import user_config_dir

    if "plugins" in asking.settings or os.environ.get(PLUGINS_ON):
        return True
    return os.path.isdir(user_config_dir().joinpath(*PLUGINS_INSTALLED))


def project_files(asking: Asking) -> bool:
    """A chat (its /commands, /agents, /skills answer even where there are none), or the
    workspace (or a folder above it, up to its repository's root) or the user's own folders
    hold commands, agents, skills or Claude Code settings; or plugins may bring some."""
    if asking.workspace is None or asking.command == "chat" or plugins(asking):
        return True
    from agent_cli.core.settings.schema import user_config_dir

    home, workspace = Path.home(), asking.workspace.expanduser().resolve()
    roots = [*_workspace_roots(workspace), user_config_dir(), home / ".agents"]
    return any(map(_holds_files, [*roots, home / ".claude"]))


def _workspace_roots(workspace: Path) -> list[Path]:
    """The workspace's folders up to its repository's root (the workspace alone outside one)."""
    folders = [workspace, *workspace.parents]
    top = next((i for i, f in enumerate(folders) if os.path.exists(f / ".git")), 0)
    return [folder / name for folder in folders[: top + 1] for name in PROJECT_FOLDERS]


def _holds_files(root: Path) -> bool:
    if not os.path.isdir(root):
        return False
    if any(os.path.isdir(root / kind) for kind in PROJECT_KINDS):
        return True
    return root.name == ".claude" and any(os.path.isfile(root / n) for n in CLAUDE_SETTINGS)
