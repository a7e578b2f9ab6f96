"""Two of issue 40's figures for bench/startup.py (through bench/warm_figures.py):

- what the warm process's confinement check costs a client: `Kinship.differs` (namespaces,
  root, cgroup, limits, LSM label, ids, capabilities, seccomp and no_new_privs read from
  /proc/<pid>) for a client in the same context, timed in this process;
- warm launch → first request in a fresh HOME (nothing under ~/.config or ~/.cache yet) and an
  empty directory that is not a git repository, both new for every launch.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from common import AGENT, Figure

from agent_cli.cli.warm.kinship import Kinship


def check_ms(repeats: int = 200) -> list[float]:
    kin = Kinship()
    pid = os.getpid()
    found = []
    for _ in range(repeats):
        start = time.perf_counter()
        assert kin.differs(pid) is None
        found.append((time.perf_counter() - start) * 1000)
    return found


def check_row() -> Figure:
    values = check_ms()
    ok = statistics.median(values) <= 3
    return Figure.of("warm: the confinement check per client", values, "ms", "target ≤ 3 ms", ok)


def fresh_probe(server: Any, env: dict[str, str]) -> tuple[float, float, float]:
    """One warm `agent run -p hi` in a new HOME and a new empty non-git directory."""
    from warm_figures import launch

    root = Path(tempfile.mkdtemp(prefix="agent-fresh-"))
    try:
        (root / "home").mkdir()
        (root / "ws").mkdir()
        fresh = {**env, "HOME": str(root / "home")}
        fresh.pop("XDG_CONFIG_HOME", None)
        server.script.text("ok")
        return launch(server, [*AGENT, "run", "-q", "-p", "hi"], fresh, str(root / "ws"))
    finally:
        shutil.rmtree(root, ignore_errors=True)
