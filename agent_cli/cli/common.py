"""What every command shares: one-line errors with the right exit code, and the state paths
(with logging to logs/agent.log) of the read-only commands."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import typer

if TYPE_CHECKING:
    from agent_cli.core.files.paths import Paths

P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write(f"agent: {message}\n")
    sys.stderr.flush()
    return typer.Exit(code)


def guarded(func: Callable[P, R]) -> Callable[P, R]:
    """AgentError -> one line on stderr and its exit code; anything else -> exit 1, never a
    bare traceback (the traceback goes to the log)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except (Exception, KeyboardInterrupt) as e:
            from agent_cli.cli.failures import failure_line

            raise fail(*failure_line(e)) from None

    return wrapper


def state_paths(workspace: Path, state_dir: Path | None) -> Paths:
    """The state paths of a read-only command; warnings (a skipped transcript line) reach
    stderr as one line, tracebacks the log file."""
    from agent_cli.core.options import Options
    from agent_cli.runtime.build import load, resolve_workspace, start_logging

    paths = load(Options(workspace=resolve_workspace(workspace), state_dir=state_dir))[1]
    start_logging(paths, quiet=False)
    return paths
