"""Project files in `agent chat`: `/commands`, `/agents`, `/skills` list them; `/name args`
runs a project command (or a skill) as a turn; Tab completes their names with the description
and argument hint."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_cli.ext.project_files.catalog import ProjectFiles
    from agent_cli.ext.project_files.definitions import Kind
    from agent_cli.ui.slash.host import Host

LISTINGS: dict[str, Kind] = {"/commands": "command", "/agents": "agent", "/skills": "skill"}
HELP = {
    "/commands": "this workspace's slash commands (.claude/commands, ...)",
    "/agents": "subagent types task can run",
    "/skills": "skills offered to the model",
}
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


def handle(host: Host, name: str, arg: str) -> bool:
    """True when `name` was ours (a listing, or a project command now running)."""
    workspace = host.runtime.options.workspace
    if name in LISTINGS:
        host.say(_listing(host, LISTINGS[name]))
        return True
    files = project_files(workspace)
    if files.resolve_command(name[1:]) is None:
        return False
    host.send(f"{name} {arg}".strip())
    return True


def _listing(host: Host, kind: Kind) -> str:
    from agent_cli.ext.project_files.listing import rows, text_lines

    files = project_files(host.runtime.options.workspace)
    lines = text_lines(rows(files, kind, host.runtime.settings))
    lines += [f"warning: {w}" for w in files.warnings]
    return "\n".join(lines) or f"No {kind}s here. The README shows the formats."


def completion_items(workspace: Path) -> list[tuple[str, str]]:
    """(`/name`, "argument hint — description") of every project command and skill."""
    items = []
    for name, item in sorted(project_files(workspace).user_commands().items()):
        hint = str(item.meta.get("argument_hint") or "")
        meta = f"{hint} — {item.description}" if hint else item.description
        items.append((f"/{name}", meta[:80]))
    return items
