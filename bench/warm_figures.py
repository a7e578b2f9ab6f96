"""Issue 25's figures for bench/startup.py: `agent run` in-process (cold) and through the warm
process, beside the floors (the bare-SDK reference loop, a bare httpx POST), and optionally
beside a baseline checkout (`--baseline DIR`: the same probes with PYTHONPATH=DIR), measured
interleaved in one run.

Per launch: launch -> first request at the test server; last reply -> exit (from the last
request's arrival, so it includes streaming the short reply); the whole wall time of a one-tool
run. Once: the warm process's idle RSS and a run's private memory (Private_Dirty of the run's
process, from /proc/<pid>/smaps_rollup, sampled while its tool runs).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import AGENT, REPO, Figure, agent_env
from warm_fresh import check_row, fresh_probe
from warm_server import WarmServer, launch

FRESH = "agent run, warm, fresh HOME, empty non-git dir"

HTTPX_POST = (
    "import sys, httpx2\n"
    "httpx2.post(sys.argv[1] + '/v1/messages', json={'model': 'm', 'max_tokens': 1, 'messages': "
    "[{'role': 'user', 'content': 'hi'}]}, headers={'x-api-key': sys.argv[2], "
    "'anthropic-version': '2023-06-01'})\n"
)


def one_tool(server: Any, env: dict[str, str], ws: str) -> tuple[float, float, float]:
    server.script.tool_use("read_file", path="a.txt").text("ok")
    return launch(server, [*AGENT, "run", "-q", "-p", "hi"], env, ws)


def private_dirty_mib(server: Any, env: dict[str, str], ws: str) -> float:
    """Private_Dirty of the run's process (the tool's parent) while its tool runs."""
    folder = Path(ws)
    for name in ("go", "agent.pid"):
        (folder / name).unlink(missing_ok=True)
    wait = "echo $PPID > agent.pid; while [ ! -f go ]; do sleep 0.01; done"
    server.script.tool_use("bash", command=wait).text("ok")
    cmd = [*AGENT, "run", "-q", "-p", "hi", "--permission-mode", "bypass"]
    unsandboxed = {**env, "AGENT_SANDBOX": "off"}  # inside bubblewrap $PPID is its pid 1
    proc = subprocess.Popen(
        cmd, cwd=ws, env=unsandboxed, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while not (folder / "agent.pid").exists() or not (folder / "agent.pid").read_text().strip():
        if proc.poll() is not None:
            raise RuntimeError("the run ended before its tool")
        time.sleep(0.01)
    pid = int((folder / "agent.pid").read_text())
    kib = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Private_Dirty:"):
            kib = int(line.split()[1])
    (folder / "go").touch()
    proc.wait()
    return kib / 1024


def probes(
    server: Any, env: dict[str, str], ws: str, warm: WarmServer, baseline: str | None
) -> dict[str, Callable[[], tuple[float, ...]]]:
    """Name -> probe returning (first request, last reply -> exit, wall)."""
    cold = {**env, "AGENT_NO_SERVER": "1"}
    key = env["ANTHROPIC_API_KEY"]
    found: dict[str, Callable[[], tuple[float, ...]]] = {
        "bare SDK (bench/ref_loop.py)": lambda: _text(
            server, [sys.executable, str(REPO / "bench" / "ref_loop.py"), "hi", ws], env, ws
        ),
        "bare httpx POST": lambda: _text(
            server, [sys.executable, "-c", HTTPX_POST, server.base_url, key], env, ws
        ),
        "agent run, in-process (cold)": lambda: one_tool(server, cold, ws),
        "agent run, warm process": lambda: one_tool(server, warm.env, ws),
        FRESH: lambda: fresh_probe(server, warm.env),
    }
    if baseline:
        before = {**cold, "PYTHONPATH": baseline}
        found["agent run, baseline checkout"] = lambda: one_tool(server, before, ws)
    return found


def _text(server: Any, cmd: list[str], env: dict[str, str], ws: str) -> tuple[float, float, float]:
    server.script.text("ok")
    return launch(server, cmd, env, ws)


def measure(
    found: dict[str, Callable[[], tuple[float, ...]]], runs: int
) -> dict[str, list[tuple[float, ...]]]:
    """Interleaved, as bench/startup.py measures: every repetition runs every probe once."""
    for probe in found.values():
        probe()  # warm the file cache (and the warm process's first fork)
    figures: dict[str, list[tuple[float, ...]]] = {name: [] for name in found}
    for _ in range(runs):
        for name, probe in found.items():
            figures[name].append(probe())
    return figures


def warm_rows(runs: int, baseline: str | None) -> list[Figure]:
    from tests.fake_model import FakeAnthropic

    with tempfile.TemporaryDirectory() as ws, FakeAnthropic() as server:
        (Path(ws) / "a.txt").write_text("alpha\n")
        env = agent_env(server.base_url, ws)
        warm = WarmServer(env)
        warm.start()
        try:
            found = probes(server, env, ws, warm, baseline)
            figures = measure(found, runs)
            status = warm.status() or {}
            idle_mib = int(status.get("rss_kib", 0)) / 1024
            cold = {**env, "AGENT_NO_SERVER": "1"}
            private = {
                way: [private_dirty_mib(server, e, ws) for _ in range(3)]
                for way, e in (("warm process", warm.env), ("in-process", cold))
            }
        finally:
            warm.stop()
    return _rows(figures, idle_mib, private, baseline)


def _rows(
    figures: dict[str, list[tuple[float, ...]]],
    idle_mib: float,
    private: dict[str, list[float]],
    baseline: str | None,
) -> list[Figure]:
    med = {name: statistics.median(v[0] for v in values) for name, values in figures.items()}
    rows = []
    for name, values in figures.items():
        first, to_exit, wall = ([v[i] for v in values] for i in range(3))
        target, ok = "", True
        if name in ("agent run, warm process", FRESH):
            target, ok = "target ≤ 0.15 s", med[name] <= 0.15
        elif name == "agent run, in-process (cold)" and baseline:
            ratio = med[name] / med["agent run, baseline checkout"]
            target, ok = f"{ratio:.2f}x baseline (target ≤ 1.05x)", ratio <= 1.05
        rows.append(Figure.of(f"{name} → first request", first, "s", target, ok))
        if name.startswith("agent run"):
            ends = statistics.median(to_exit)
            goal = "target ≤ 0.05 s" if "baseline" not in name else ""
            rows.append(
                Figure.of(
                    f"{name}: last reply → exit", to_exit, "s", goal, ends <= 0.05 or not goal
                )
            )
        rows.append(Figure.of(f"{name}: wall, one tool", wall, "s"))
    rows.append(check_row())
    rows.append(
        Figure.of("warm process idle RSS", [idle_mib], "MiB", "target ≤ 120 MiB", idle_mib <= 120)
    )
    for way, values in private.items():
        ok = way != "warm process" or statistics.median(values) <= 20
        target = "target ≤ 20 MiB" if way == "warm process" else ""
        rows.append(Figure.of(f"private memory of a run, {way}", values, "MiB", target, ok))
    return rows
