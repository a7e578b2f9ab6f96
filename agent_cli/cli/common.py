"""What every command shares: one-line errors with the right exit code."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from agent_cli.errors import AgentError

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
        except AgentError as e:
            raise fail(str(e), e.exit_code) from None
        except KeyboardInterrupt:
            raise fail("interrupted", 130) from None
        except Exception as e:
            logging.getLogger("agent_cli").exception("unexpected error")
            raise fail(f"internal error: {type(e).__name__}: {e} (see logs/agent.log)", 1) from None

    return wrapper
