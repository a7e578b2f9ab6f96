"""`--worktree [NAME]` and `--base REF` of `agent run` and `agent chat`: the session runs in an
agent worktree, entered before the runtime is built and left (removed when unchanged, else
kept and named) when the command ends, however it ends. Standard library only at import:
`agent chat` parses before anything heavy loads."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.core.options import Options

FLAG = "--worktree"


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
    from agent_cli.ext.worktrees.use import enter, leave

    entered = enter(options.workspace, name or None, base)
    for note in entered.notes:
        sys.stderr.write(f"agent: {note}\n")
    state = options.state_dir or Path(os.environ.get("AGENT_STATE_DIR") or options.workspace)
    moved = replace(
        options, workspace=entered.workspace, state_dir=state, worktree=entered.record.name
    )
    try:
        yield moved
    finally:
        lines = leave(entered)
        sys.stderr.write(
            "".join(f"agent: {line}\n" if n == 0 else f"{line}\n" for n, line in enumerate(lines))
        )
        sys.stderr.flush()
