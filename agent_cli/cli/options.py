"""Options shared by `agent run` and `agent chat`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import typer


def more_than_zero(value: float | None) -> float | None:
    """A limit of 0 or less would stop the run before it starts: refused by the flag's name."""
    if value is not None and value <= 0:
        raise typer.BadParameter(f"{value:g} is not a limit: say a number more than 0")
    return value


PermissionModeOpt = Literal["default", "accept-edits", "bypass", "plan", "auto"]

WORKSPACE = typer.Option(
    Path(), "--workspace", "-w", help="Repository to work in (default: current directory)."
)
STATE_DIR = typer.Option(
    None,
    "--state-dir",
    envvar="AGENT_STATE_DIR",
    help="Where transcripts, notes and logs go (default: the workspace).",
)
MODEL = typer.Option(None, "--model", "-m", help="Model id (default: AGENT_MODEL, settings).")
PERMISSION_MODE = typer.Option(
    None,
    "--permission-mode",
    help="default, accept-edits, bypass, plan or auto (a reviewer answers).",
)
SandboxModeOpt = Literal["auto", "required", "off"]
SANDBOX = typer.Option(None, "--sandbox", help="auto, required or off (AGENT_SANDBOX).")
RESUME = typer.Option(None, "--resume", "-r", help="Resume a session by id (a unique prefix).")
CONTINUE = typer.Option(False, "--continue", "-c", help="Resume the newest session here.")
FORK_SESSION = typer.Option(
    False,
    "--fork-session",
    help="With --continue/--resume: go on in a new session with its history (it stays as is).",
)
WORKTREE = typer.Option(
    None,
    "--worktree",
    help="Work in an agent worktree .agent/worktrees/NAME on branch agent/NAME (no NAME: one "
    "is made up); kept on exit if anything changed.",
)
BASE = typer.Option(
    None, "--base", help="The commit --worktree starts from (default HEAD), resolved once."
)
BACKGROUND = typer.Option(
    False, "--bg", help="Detached from the terminal; it asks, not denies (agent ps, logs, stop)."
)
NAME = typer.Option(
    None, "--name", help="With --bg: the session's name (default: from the prompt)."
)
