"""Project files in `agent chat`: `/commands`, `/agents`, `/skills` list them; `/name args`
runs a project command (or a skill) as a turn; Tab completes their names with the description
and argument hint (the chat's port `"workspace_commands"`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_cli.ext.project_files.catalog import ProjectFiles
    from agent_cli.ext.project_files.definitions import Kind
    from agent_cli.runtime.extensions.contract import CommandPort, ExtensionContext

CACHE_S = 3.0  # completion runs on every key press: the files are read again at most this often
_cache: dict[Path, tuple[float, ProjectFiles]] = {}


def project_files(workspace: Path) -> ProjectFiles:
    from agent_cli.ext.project_files.catalog import load_project_files

    now = time.monotonic()
    hit = _cache.get(workspace)
    if hit is None or now - hit[0] > CACHE_S:
        hit = (now, load_project_files(workspace))
        _cache[workspace] = hit
    return hit[1]


class ProjectCommands:
    """The port: the workspace's commands and user-invocable skills, by name."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    def resolves(self, name: str) -> bool:
        return project_files(self.workspace).resolve_command(name) is not None

    def completions(self) -> list[tuple[str, str]]:
        return completion_items(self.workspace)


def workspace_commands(context: ExtensionContext) -> ProjectCommands:
    return ProjectCommands(context.workspace)


def show_listing(port: CommandPort, kind: Kind) -> None:
    """`/commands`, `/agents`, `/skills`: what `agent <kind>s list` shows."""
    from agent_cli.ext.project_files.listing import rows, text_lines

    context = port.context
    files = project_files(context.workspace)
    lines = text_lines(rows(files, kind, context.settings))
    lines += [f"warning: {w}" for w in files.warnings]
    port.say("\n".join(lines) or f"No {kind}s here. The README shows the formats.")


def completion_items(workspace: Path) -> list[tuple[str, str]]:
    """(`/name`, "argument hint — description") of every project command and skill."""
    items = []
    for name, item in sorted(project_files(workspace).user_commands().items()):
        hint = str(item.meta.get("argument_hint") or "")
        meta = f"{hint} — {item.description}" if hint else item.description
        items.append((f"/{name}", meta[:80]))
    return items
