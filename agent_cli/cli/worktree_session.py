"""`--worktree [NAME]` and `--base REF` of `agent run` and `agent chat`: the session runs in an
agent worktree, entered before the runtime is built and left (removed when unchanged, else
kept and named) when the command ends, however it ends. The worktrees extension does the
work, through the port "worktree_session" (the Protocol below). Standard library only at
import: `agent chat` parses before anything heavy loads."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Protocol, runtime_checkable

from agent_cli.core.errors import UsageError
from agent_cli.core.options import Options

FLAG = "--worktree"
PORT = "worktree_session"


class EnteredWorktree(Protocol):
    """A worktree a session works in, held until `leave`."""

    @property
    def workspace(self) -> Path: ...  # where the session works

    @property
    def name(self) -> str: ...

    @property
    def notes(self) -> list[str]: ...  # what the user should know before it runs

    def leave(self) -> list[str]:
        """Let go: removed when unchanged, else kept; the lines that say which."""
        ...


@runtime_checkable
class WorktreeSessions(Protocol):
    def enter(self, workspace: Path, name: str | None, base: str | None) -> EnteredWorktree:
        """The worktree `name` (None: a made-up name), made from `base` (None: HEAD) unless
        it is there; UsageError (exit 2) outside a repository, on a bad name or base, or when
        another session holds it."""
        ...


def optional_name(argv: list[str]) -> list[str]:
    """`--worktree` with no name (last, or before another option) becomes `--worktree=`: typer
    has no option with an optional value."""
    out = []
    for i, arg in enumerate(argv):
        following = argv[i + 1] if i + 1 < len(argv) else None
        bare = arg == FLAG and (following is None or following.startswith("-"))
        out.append(f"{FLAG}=" if bare else arg)
        if arg == "--":
            out.extend(argv[i + 1 :])
            break
    return out


@contextmanager
def in_worktree(options: Options, name: str | None, base: str | None) -> Iterator[Options]:
    """`options` moved into the worktree `name` ('' = a generated name; None = no worktree);
    the transcripts, checkpoints and logs stay where they would have been."""
    if name is None:
        if base is not None:
            raise UsageError("--base needs --worktree")
        yield options
        return
    state = options.state_dir or Path(os.environ.get("AGENT_STATE_DIR") or options.workspace)
    entered = sessions(options.workspace, state).enter(options.workspace, name or None, base)
    for note in entered.notes:
        sys.stderr.write(f"agent: {note}\n")
    moved = replace(options, workspace=entered.workspace, state_dir=state, worktree=entered.name)
    try:
        yield moved
    finally:
        lines = entered.leave()
        sys.stderr.write(
            "".join(f"agent: {line}\n" if n == 0 else f"{line}\n" for n, line in enumerate(lines))
        )
        sys.stderr.flush()


def sessions(workspace: Path, state: Path) -> WorktreeSessions:
    """The port, from the built-in extension that provides it (made before the run's settings
    are read: its context has the defaults); UsageError when none does."""
    from dataclasses import replace

    from agent_cli.core.files.paths import Paths
    from agent_cli.core.settings.schema import Settings
    from agent_cli.runtime.extensions.contract import ExtensionContext
    from agent_cli.runtime.extensions.discovery import Asking
    from agent_cli.runtime.extensions.registry import BUILTINS, discover

    asleep = [replace(d, asked=lambda asking: False) for d in BUILTINS]  # the port wakes its own
    found = discover(path=(), builtins=asleep, asking=Asking(workspace=workspace))
    paths = Paths(state.expanduser().resolve())
    made = found.port(PORT, lambda n: ExtensionContext(n, workspace, paths, Settings(), ""))
    if not isinstance(made, WorktreeSessions):
        raise UsageError(f"{FLAG}: agent worktrees are not available (no worktrees extension)")
    return made
