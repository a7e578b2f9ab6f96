"""Project files in `agent chat`: `/commands`, `/agents`, `/skills` list them; `/name args`
runs a project command (or a skill) as a turn; Tab completes their names with the description
and argument hint (the chat's port `"workspace_commands"`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_cli.ext.project_files.catalog import ProjectFiles
    from agent_cli.ext.project_files.definitions import Kind
    from agent_cli.runtime.bundles import Bundle
    from agent_cli.runtime.extensions.contract import CommandPort, ExtensionContext

CACHE_S = 3.0  # completion runs on every key press: the files are read again at most this often
_cache: dict[Path, tuple[float, ProjectFiles]] = {}


def project_files(workspace: Path, bundles: Sequence[Bundle] = ()) -> ProjectFiles:
    """The workspace's files and what the enabled plugins (`bundles`) bring."""
    from agent_cli.ext.project_files.catalog import load_project_files

    now = time.monotonic()
    hit = _cache.get(workspace)
    if hit is None or now - hit[0] > CACHE_S:
        hit = (now, load_project_files(workspace, bundles=bundles))
        _cache[workspace] = hit
    return hit[1]


class ProjectCommands:
    """The port: the workspace's commands and user-invocable skills (its plugins' too), by
    name."""

    def __init__(self, workspace: Path, bundles: Sequence[Bundle] = ()) -> None:
        self.workspace, self.bundles = workspace, bundles

    def resolves(self, name: str) -> bool:
        return project_files(self.workspace, self.bundles).resolve_command(name) is not None

    def completions(self) -> list[tuple[str, str]]:
        return completion_items(self.workspace, self.bundles)


def workspace_commands(context: ExtensionContext) -> ProjectCommands:
    from agent_cli.runtime.extensions.bundle_port import bundles_of

    return ProjectCommands(context.workspace, bundles_of(context.ports).bundles())


def show_listing(port: CommandPort, kind: Kind) -> None:
    """`/commands`, `/agents`, `/skills`: what `agent <kind>s list` shows."""
    from agent_cli.ext.project_files.listing import rows, text_lines
    from agent_cli.runtime.extensions.bundle_port import bundles_of

    context = port.context
    source = bundles_of(context.ports)
    files = project_files(context.workspace, source.bundles())
    lines = text_lines(rows(files, kind, context.settings))
    lines += [f"warning: {w}" for w in [*files.warnings, *source.warnings()]]
    port.say("\n".join(lines) or f"No {kind}s here. The README shows the formats.")


def completion_items(workspace: Path, bundles: Sequence[Bundle] = ()) -> list[tuple[str, str]]:
    """(`/name`, "argument hint — description") of every project command and skill."""
    items = []
    for name, item in sorted(project_files(workspace, bundles).user_commands().items()):
        hint = str(item.meta.get("argument_hint") or "")
        meta = f"{hint} — {item.description}" if hint else item.description
        items.append((f"/{name}", meta[:80]))
    return items
