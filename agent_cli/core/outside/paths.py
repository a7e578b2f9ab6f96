"""Programs and paths looked up without following what a workspace could have planted.

A repository can ship `node_modules/.bin/pylsp` or a `./gopls` in its root; with a relative or
empty entry on PATH (or an entry inside the workspace) a lookup would find it there and run it
unconfined. A path the agent itself acts on (`.agent/tmp`, `.git`, `.claude`) is checked part by
part with lstat: a link in any part is somebody else's choice of where it goes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


class PlantedLink(OSError):
    """A path the agent acts on runs through a symbolic link inside the workspace."""


def safe_path_entries(path: str | None, workspace: Path | None) -> list[str]:
    """PATH's entries that are absolute and outside `workspace` (resolved), in order."""
    entries: list[str] = []
    root = workspace.resolve() if workspace is not None else None
    for entry in (path if path is not None else os.environ.get("PATH", "")).split(os.pathsep):
        if not entry or not Path(entry).is_absolute():
            continue
        if root is not None and Path(entry).resolve().is_relative_to(root):
            continue
        entries.append(entry)
    return entries


def program(name: str, workspace: Path | None = None, path: str | None = None) -> str | None:
    """The absolute path of program `name`, looked up on PATH without its relative, empty or
    in-workspace entries; a name with a slash is taken as it is only when absolute."""
    if os.sep in name:
        return name if Path(name).is_absolute() and shutil.which(name) else None
    safe = os.pathsep.join(safe_path_entries(path, workspace))
    return shutil.which(name, path=safe) if safe else None


def no_links(path: Path, root: Path) -> Path:
    """`path` (inside `root`) when no part of it below `root` is a symbolic link; PlantedLink
    otherwise. Parts that do not exist yet are fine: nothing can be planted there."""
    relative = path.relative_to(root)
    current = root
    for part in relative.parts:
        current = current / part
        if current.is_symlink():
            raise PlantedLink(f"{current} is a symbolic link; the agent does not follow it")
    return path
