"""The workspace files the agent itself will run outside the sandbox later: a trusted hook's
`./check.sh`, a language or MCP server the repository ships, the status line's script. A
confined command may write anything in the workspace, so these are bound read-only inside it
(sandbox/policy.py `run_later`): nothing it writes there runs unconfined afterwards.

A command names them as words: each word (shell operators split off) that is the path of an
existing file inside the workspace, relative to it or absolute. A link counts as itself and,
when it points inside the workspace, as what it points at. What those files import or source
in turn is not followed (README says so)."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path

_SHELL_SPLIT = re.compile(r"[;&|()<>`\s]+")


def _words(command: str | Sequence[str]) -> list[str]:
    if not isinstance(command, str):
        return [w for part in command for w in _SHELL_SPLIT.split(part)]
    try:
        tokens = shlex.split(command)
    except ValueError:  # an unbalanced quote: the plain words still name what it runs
        tokens = command.split()
    return [w for token in tokens for w in _SHELL_SPLIT.split(token)]


def _inside(path: Path, root: Path) -> bool:
    return Path(os.path.normpath(path)).is_relative_to(root)


def _named(word: str, root: Path) -> list[Path]:
    word = word.split("=", 1)[1] if "=" in word and not word.startswith("/") else word
    if not word or word.startswith("-"):
        return []
    path = Path(os.path.normpath(root / word))
    if not _inside(path, root) or not (path.is_symlink() or path.is_file()):
        return []
    found = [path]
    if path.is_symlink():
        target = path.resolve()
        if _inside(target, root) and target.is_file():
            found.append(target)
    return found


def workspace_programs(
    commands: Iterable[str | Sequence[str]], workspace: Path
) -> tuple[Path, ...]:
    """The files inside `workspace` that `commands` (shell strings or argv lists, run with the
    workspace as their directory) name, each once, in order."""
    root = Path(os.path.normpath(workspace.absolute()))
    seen: dict[Path, None] = {}
    for command in commands:
        for word in _words(command):
            for path in _named(word, root):
                seen.setdefault(path, None)
    return tuple(seen)
