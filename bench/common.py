"""Shared by the benchmark scripts: the fake server, running the agent, figures and targets.

Every script prints one line per figure and, with `--json`, one JSON object per figure
(`name, median, min, max, unit, target, ok`) so `bench/run_all.py` can collect them.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.e2e.helpers import run_agent  # noqa: E402 - one way to launch the CLI, shared with the tests

__all__ = [
    "AGENT",
    "REPO",
    "Figure",
    "agent_env",
    "first_request",
    "peak_rss_mib",
    "report",
    "run_agent",
]

AGENT = [sys.executable, "-m", "agent_cli"]
FAKE_KEY = "sk-test-" + "k" * 32
# A child's ru_maxrss counts the image it was forked from until it execs: a benchmark process that
# has grown (the fake server keeps every request body) would lend the agent its own size. A small
# wrapper launched first is what the agent is forked from; it reports the agent's peak alone
# (the agent's stderr passes through, for the error when it fails).
_PEAK_WRAPPER = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.exit(done.returncode)\n"
)


@dataclass
class Figure:
    name: str
    median: float
    min: float
    max: float
    unit: str
    target: str = ""
    ok: bool = True

    @classmethod
    def of(
        cls, name: str, values: list[float], unit: str, target: str = "", ok: bool = True
    ) -> Figure:
        return cls(name, statistics.median(values), min(values), max(values), unit, target, ok)

    def line(self) -> str:
        flag = "" if self.ok else "  MISSED"
        return (
            f"{self.name:<44} median {self.median:10.3f}  min {self.min:10.3f}  "
            f"max {self.max:10.3f} {self.unit:<6} {self.target}{flag}"
        )


def agent_env(base_url: str, home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        PYTHONPATH=str(REPO),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY=FAKE_KEY,
        HOME=home,
        NO_COLOR="1",
        # in-process figures: a warm process would make the client's RSS and CPU meaningless
        # (bench/warm_figures.py measures the warm process on its own)
        AGENT_NO_SERVER="1",
    )
    return env


def peak_rss_mib(cmd: list[str], env: dict[str, str], cwd: Path | str) -> float:
    """Peak RSS of `cmd`'s process in MiB (its waited-for children's too); raises if it fails."""
    out = subprocess.run(
        [sys.executable, "-c", _PEAK_WRAPPER, *cmd],
        cwd=cwd, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} exited {out.returncode}: {out.stderr[-2000:]}")
    return int(out.stdout.strip()) / 1024  # KiB on Linux


def report(figures: list[Figure], as_json: bool) -> int:
    for figure in figures:
        print(json.dumps(asdict(figure)) if as_json else figure.line())
    return 0 if all(f.ok for f in figures) else 1


def first_request(
    server: Any, env: dict[str, str], ws: Path | str, *args: str, cpu: list[float] | None = None
) -> float:
    """Seconds from launching `agent run -p hi [args]` in `ws` to its first request arriving
    at the test model server (which stamps arrivals with time.monotonic()). With `cpu`, also
    appends the CPU seconds the process had used by then: a figure the other programs on a
    shared machine do not move, as they move the wall clock."""
    server.script.text("ok")
    seen = len(server.requests)
    start = time.monotonic()  # the server stamps arrivals with time.monotonic()
    proc = subprocess.Popen(
        [*AGENT, "run", "-q", "-p", "hi", *args], cwd=ws, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    while len(server.requests) == seen:
        if proc.poll() is not None:
            raise RuntimeError("agent run exited before its first request")
        time.sleep(0.001)
    if cpu is not None:
        with contextlib.suppress(OSError, IndexError, ValueError):  # it may have ended already
            cpu.append(cpu_seconds(proc.pid))
    elapsed: float = server.requests[seen].time - start
    proc.wait()
    return elapsed


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process (Linux), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
