"""`agent ARGS` run in the test's own process, as `python -m agent_cli` runs it once it knows it
runs the command itself (cli/entry.py's `run_in_process`): the same typer command tree, the
environment, working directory, stdin, stdout and stderr it would have, and its exit code.

A launch costs 2.5 s of CPU (importing the SDK and this tree) before the first line of logic; in
process, where they are imported already, a run costs milliseconds (bench/launch_cost.py). What
needs a real process (signals, a terminal, the warm process, `os._exit` after the run) stays
with `tests/e2e/helpers.run_agent`.
"""

from __future__ import annotations

import contextlib
import gc
import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from agent_cli.cli.entry import run_in_process


def run_cli(
    env: dict[str, str], workspace: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`agent ARGS` in `workspace` with exactly `env` as its environment; what it wrote to
    stdout and stderr, as `run_agent` returns it from a child."""
    out, err = _stream(), _stream()
    with _process_state(env, workspace), _std(_stream(stdin or ""), out, err):
        code = run_in_process(list(args))
    return subprocess.CompletedProcess(["agent", *args], code, _text(out), _text(err))


def _stream(text: str = "") -> io.TextIOWrapper:
    """A text stream with a byte buffer under it, as a pipe's (no terminal: isatty is False)."""
    return io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", errors="replace")


@contextlib.contextmanager
def _std(stdin: io.TextIOWrapper, out: io.TextIOWrapper, err: io.TextIOWrapper) -> Iterator[None]:
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = stdin, out, err
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


@contextlib.contextmanager
def _process_state(env: dict[str, str], workspace: Path) -> Iterator[None]:
    """What a run changes in its process is given back afterwards: the environment, the working
    directory, the root logger's handlers (setup_logging replaces them) and the collector
    (`agent run` pauses it while it imports, and freezes what it imported)."""
    saved_env, saved_cwd = dict(os.environ), Path.cwd()
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    gc_was_on = gc.isenabled()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(workspace)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for handler in list(root.handlers):
            if handler not in saved_handlers:
                root.removeHandler(handler)
                handler.close()
        for handler in saved_handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(saved_level)
        gc.unfreeze()
        if gc_was_on:
            gc.enable()
