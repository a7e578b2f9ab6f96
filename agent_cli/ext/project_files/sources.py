"""Where project files come from, nearest first: `.agent/`, `.agents/`, `.claude/` in the
workspace and each folder above it up to the repository root, then the user's
`~/.config/agent/`, `~/.agents/`, `~/.claude/`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_cli.core.settings.schema import user_config_dir

FOLDERS = (".agent", ".agents", ".claude")
Scope = Literal["workspace", "user", "builtin", "plugin"]


@dataclass(frozen=True)
class Root:
    """One folder that may hold `commands/`, `agents/`, `skills/` and `settings.json`."""

    path: Path
    scope: Scope


def repository_root(workspace: Path) -> Path:
    """The nearest folder at or above the workspace holding `.git`; the workspace if none."""
    for folder in (workspace, *workspace.parents):
        if (folder / ".git").exists():
            return folder
    return workspace


def workspace_roots(workspace: Path) -> list[Root]:
    top = repository_root(workspace)
    roots: list[Root] = []
    folder = workspace
    while True:
        roots += [Root(folder / name, "workspace") for name in FOLDERS]
        if folder == top or folder.parent == folder:
            return roots
        folder = folder.parent


def user_roots() -> list[Root]:
    home = Path.home()
    return [
        Root(user_config_dir(), "user"),
        Root(home / ".agents", "user"),
        Root(home / ".claude", "user"),
    ]


def all_roots(workspace: Path) -> list[Root]:
    seen: set[Path] = set()
    roots: list[Root] = []
    for root in [*workspace_roots(workspace), *user_roots()]:
        key = root.path.resolve() if root.path.exists() else root.path
        if key not in seen and root.path.is_dir():
            seen.add(key)
            roots.append(root)
    return roots


def markdown_files(folder: Path, limit: int = 2_000) -> list[Path]:
    """`*.md` under `folder`, sorted, symlinks to files followed but never out of `folder`'s
    tree into a loop; at most `limit` (a hostile tree cannot stall start-up)."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    for path in sorted(folder.rglob("*.md")):
        if path.is_file():
            found.append(path)
        if len(found) >= limit:
            break
    return found
