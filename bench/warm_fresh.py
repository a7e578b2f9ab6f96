"""Two of issue 40's figures for bench/startup.py (through bench/warm_figures.py):

- what the warm process's confinement check costs a client: `Kinship.differs` (namespaces,
  root, cgroup, limits, LSM label, ids, capabilities, seccomp and no_new_privs read from
  /proc/<pid>) for a client in the same context, timed in this process;
- warm launch → first request in a fresh HOME (nothing under ~/.config or ~/.cache yet) and an
  empty directory that is not a git repository, both new for every launch.

Run alone, the second beside a baseline checkout's warm process, interleaved in one run:

    python bench/warm_fresh.py [--runs 15] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from common import AGENT, Figure, agent_env, report
from warm_server import WarmServer, launch

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


def side_by_side(runs: int, baseline: str | None) -> list[Figure]:
    from tests.fake_model import FakeAnthropic

    with tempfile.TemporaryDirectory() as home, FakeAnthropic() as server:
        env = agent_env(server.base_url, home)
        ways = {"this checkout": env}
        if baseline:
            ways["baseline"] = {**env, "PYTHONPATH": baseline}
        warm = {name: WarmServer(way) for name, way in ways.items()}
        try:
            for one in warm.values():
                one.start()
            firsts: dict[str, list[float]] = {name: [] for name in warm}
            for repeat in range(runs + 1):  # the first round warms the file cache
                for name, one in warm.items():
                    first = fresh_probe(server, one.env)[0]
                    if repeat:
                        firsts[name].append(first)
        finally:
            for one in warm.values():
                one.stop()
    rows = []
    for name, values in firsts.items():
        ok = statistics.median(values) <= 0.15
        label = f"warm, fresh HOME, empty non-git dir, {name}"
        rows.append(Figure.of(label, values, "s", "target ≤ 0.15 s", ok))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", help="a checkout to compare with (PYTHONPATH=DIR)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    return report(side_by_side(args.runs, args.baseline), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
