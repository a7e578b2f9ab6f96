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
import warnings
from collections.abc import Iterator
from pathlib import Path

from agent_cli.cli.entry import run_in_process


def run_cli(
    env: dict[str, str], workspace: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`agent ARGS` in `workspace` with exactly `env` as its environment; what it wrote to
    stdout and stderr, as `run_agent` returns it from a child."""
    out, err = _stream(), _stream()
    with _process_state(env, workspace), _std(_stream(stdin or ""), out, err), _warnings():
        code = run_in_process(list(args))
    return subprocess.CompletedProcess(["agent", *args], code, _text(out), _text(err))


def _stream(text: str = "") -> io.TextIOWrapper:
    """A text stream with a byte buffer under it, as a pipe's (no terminal: isatty is False)."""
    return io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    text = buffer.getvalue().decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as subprocess's text mode reads


@contextlib.contextmanager
def _std(stdin: io.TextIOWrapper, out: io.TextIOWrapper, err: io.TextIOWrapper) -> Iterator[None]:
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = stdin, out, err
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


@contextlib.contextmanager
def _warnings() -> Iterator[None]:
    """The warning filters a new interpreter starts with, not the suite's (which makes every
    warning an error): a library's DeprecationWarning is no failure of the run."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning):
            warnings.simplefilter("ignore", category)
        warnings.simplefilter("ignore", ResourceWarning)
        yield


@contextlib.contextmanager
def _process_state(env: dict[str, str], workspace: Path) -> Iterator[None]:
    """What a run changes in its process is given back afterwards: the environment, the working
    directory, the root logger (none of the suite's handlers during the run, as in a new
    interpreter; setup_logging installs the run's own) and the collector
    (`agent run` pauses it while it imports, and freezes what it imported)."""
    saved_env, saved_cwd = dict(os.environ), Path.cwd()
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    gc_was_on = gc.isenabled()
    for handler in saved_handlers:  # a new interpreter's: a warning logged before
        root.removeHandler(handler)  # setup_logging reaches stderr (logging's last resort)
    root.setLevel(logging.WARNING)
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
