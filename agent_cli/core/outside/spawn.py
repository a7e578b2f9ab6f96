"""Starting a program outside the sandbox: the only place `agent_cli/` calls subprocess.

Every start takes the environment it is given, or else the user's less credentials (env.py):
nothing inherits the agent's own environment by accident. A process started here is known to
reap.py, which reaps what it leaves behind (and sweeps before each start)."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.core.outside import reap
from agent_cli.core.outside.env import default_env
from agent_cli.core.outside.paths import program

if TYPE_CHECKING:
    import asyncio


def _env(env: Mapping[str, str] | None) -> dict[str, str]:
    return default_env() if env is None else dict(env)


def absolute(argv: Sequence[str], cwd: Any = None) -> list[str]:
    """`argv` with a bare program name made absolute, looked up without PATH's relative, empty
    or (with `cwd`) in-`cwd` entries: started by name, exec would search PATH from the working
    directory, the workspace, and run a `bash` or `git` a repository holds."""
    first = str(argv[0])
    if os.sep in first:
        return [str(a) for a in argv]
    found = program(first, Path(cwd) if cwd is not None else None)
    if found is None:
        why = f"{first} is not on PATH (relative, empty and workspace entries are skipped)"
        raise FileNotFoundError(errno.ENOENT, why, first)
    return [found, *(str(a) for a in argv[1:])]


def run(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run(argv)` with the gate's environment unless one is given."""
    return subprocess.run(absolute(argv, kwargs.get("cwd")), env=_env(env), **kwargs)


def popen(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, **kwargs: Any
) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(argv)` with the gate's environment unless one is given."""
    reap.sweep()
    with reap.starting():
        proc = subprocess.Popen(absolute(argv, kwargs.get("cwd")), env=_env(env), **kwargs)
        reap.started(proc.pid)
    return proc


async def start(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, **kwargs: Any
) -> asyncio.subprocess.Process:
    """`asyncio.create_subprocess_exec(*argv)` with the gate's environment unless one is
    given."""
    import asyncio  # here: the warm client starts its server through this module, lightly

    reap.sweep()
    argv = absolute(argv, kwargs.get("cwd"))
    with reap.starting():
        proc = await asyncio.create_subprocess_exec(*argv, env=_env(env), **kwargs)
        reap.started(proc.pid)
    return proc


TimeoutExpired = subprocess.TimeoutExpired
CompletedProcess = subprocess.CompletedProcess
Popen = subprocess.Popen
PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
STDOUT = subprocess.STDOUT
