"""The warm process rehearses one whole `agent run` (a read_file and a bash call) before it
serves, so what a run builds on first use is built once in pages its children share. The
rehearsal must leave the process as it found it (a child inherits all of it) and write nothing
where the user's files are. Each case runs in its own interpreter: the rehearsal changes a
process's state while it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]

PROBE = r"""
import gc, json, logging, os, signal, sys, threading
from agent_cli.cli.warm import rehearsal
from agent_cli.core.files import durable

def state():
    return {
        "environ": dict(os.environ), "cwd": os.getcwd(),
        "signals": {int(s): repr(signal.getsignal(s)) for s in signal.valid_signals()},
        "handlers": [repr(h) for h in logging.getLogger().handlers],
        "level": logging.getLogger().level, "synced": list(durable._FOLDERS),
        "fds": sorted(os.listdir("/proc/self/fd")), "threads": threading.active_count(),
        "gc": [gc.isenabled(), gc.get_threshold()],
    }

if sys.argv[1] == "unbound":
    def refuse(*args, **kwargs):
        raise OSError("no loopback here")
    rehearsal.HTTPServer = refuse
before = state()
ok = rehearsal.rehearse()
after = state()
changed = sorted(k for k in before if before[k] != after[k])

from pathlib import Path
from agent_cli.core.settings.schema import Settings
from agent_cli.core.settings.sections import _extended, extended
from agent_cli.runtime.extensions.discovery import Asking
from agent_cli.runtime.extensions.registry import discover

plain_run = Asking(frozenset({"permissions"}), Path.cwd(), "run")  # `--permission-mode`
hits = _extended.cache_info().hits
extended(Settings, discover(asking=plain_run).sections())
shared = _extended.cache_info().hits > hits  # the rehearsal made the settings model a run uses
print(json.dumps({"ok": ok, "replies": rehearsal._Model.replies, "changed": changed,
                  "shared": shared}))
"""


def rehearse(tmp_path: Path, how: str = "bound") -> tuple[dict[str, object], str, Path]:
    home, programs = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    programs.mkdir()
    server = programs / "gopls"  # a language server on PATH asks for the lsp extension
    server.write_text("#!/bin/sh\n")
    server.chmod(0o755)
    env = {
        "PATH": f"{programs}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "ANTHROPIC_API_KEY": "sk-the-users-own-" + "k" * 20,
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, how],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    return json.loads(lines[-1]), "\n".join(lines[:-1]) + done.stderr, home


def test_a_rehearsal_runs_a_turn_with_two_calls_and_leaves_the_process_as_it_was(
    tmp_path: Path,
) -> None:
    found, said, home = rehearse(tmp_path)
    assert found == {"ok": True, "replies": 2, "changed": [], "shared": True}
    assert said == ""  # the run's output went nowhere
    assert list(home.iterdir()) == []  # nothing in the user's home: its own throwaway one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "home"]  # nor where it started


@pytest.mark.parametrize("how", ["unbound"])
def test_without_loopback_nothing_is_rehearsed_and_nothing_changes(
    tmp_path: Path, how: str
) -> None:
    found, said, _home = rehearse(tmp_path, how)
    assert found == {"ok": False, "replies": 0, "changed": [], "shared": False}
    assert said == ""
