"""Running ripgrep (the `rg` binary of the PyPI `ripgrep` package) for glob and grep.

Both skip the state folders (SPEC §2) unless their search root lies inside one, and honour
.gitignore whether or not the workspace is a git repository. rg runs outside the sandbox: it is
found as the gate finds programs (never through a relative, empty or in-workspace PATH entry)
and started through it, with the user's environment less credentials.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.outside import spawn
from agent_cli.core.outside.paths import program
from agent_cli.core.tool_contract import ToolContext
from agent_cli.tools.fs import inside

RG_TIMEOUT_S = 60.0


class RgMissing(Exception):
    """No rg binary: the message says how to install it."""


@dataclass
class RgRun:
    code: int
    stdout: str
    stderr: str


def find_rg(workspace: Path | None = None) -> str:
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = program("rg", workspace)
    if found is None:
        raise RgMissing(
            f"ripgrep (rg) was not found next to Python ({beside.parent}) or on PATH "
            "(outside the workspace). Install it with: pip install ripgrep==14.1.0"
        )
    return found


def exclusions(ctx: ToolContext, root: Path) -> list[str]:
    """rg globs (anchored at `root`, rg's working directory) leaving out the state folders."""
    globs = ["!.git"]
    for folder in ctx.paths.state_folders():
        folder = folder.resolve()
        if inside(root, folder):
            return globs  # pointed into a state folder: search it
        if folder != root and folder.is_relative_to(root):
            globs.append("!/" + folder.relative_to(root).as_posix())
    return globs


def base_args(ctx: ToolContext, root: Path) -> list[str]:
    args = ["--no-config", "--hidden", "--no-require-git", "--color", "never"]
    for glob in exclusions(ctx, root):
        args += ["--glob", glob]
    return args


async def run_rg(
    args: list[str], cwd: Path, timeout: float = RG_TIMEOUT_S, workspace: Path | None = None
) -> RgRun:
    """`workspace`: PATH entries inside it are not searched for rg (none when not given)."""
    proc = await spawn.start(
        [find_rg(workspace), *args],
        cwd=cwd,
        stdin=spawn.DEVNULL,
        stdout=spawn.PIPE,
        stderr=spawn.PIPE,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except BaseException:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(BaseException):
            await asyncio.shield(proc.wait())
        raise
    return RgRun(
        proc.returncode or 0,
        out.decode("utf-8", errors="replace"),
        err.decode("utf-8", errors="replace"),
    )


def strip_dot(rel: str) -> str:
    return rel[2:] if rel.startswith("./") else rel
