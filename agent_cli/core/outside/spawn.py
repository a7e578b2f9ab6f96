"""Starting a program outside the sandbox: the only place `agent_cli/` calls subprocess.

Every start takes the environment it is given, or else the user's less credentials (env.py):
nothing inherits the agent's own environment by accident."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agent_cli.core.outside.env import clean_env

_passed: frozenset[str] = frozenset()


def pass_names(names: Iterable[str]) -> None:
    """The credential-looking variables the user's own settings hand on (`pass_env`)."""
    global _passed
    _passed = frozenset(names)


def default_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The user's environment less credentials (but those `pass_env` names), plus `extra`."""
    return {**clean_env(_passed), **(extra or {})}


def _env(env: Mapping[str, str] | None) -> dict[str, str]:
    return default_env() if env is None else dict(env)


def run(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run(argv)` with the gate's environment unless one is given."""
    return subprocess.run(list(argv), env=_env(env), **kwargs)


def popen(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, **kwargs: Any
) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(argv)` with the gate's environment unless one is given."""
    return subprocess.Popen(list(argv), env=_env(env), **kwargs)


async def start(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, **kwargs: Any
) -> asyncio.subprocess.Process:
    """`asyncio.create_subprocess_exec(*argv)` with the gate's environment unless one is
    given."""
    return await asyncio.create_subprocess_exec(*argv, env=_env(env), **kwargs)


TimeoutExpired = subprocess.TimeoutExpired
CompletedProcess = subprocess.CompletedProcess
Popen = subprocess.Popen
PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
STDOUT = subprocess.STDOUT
