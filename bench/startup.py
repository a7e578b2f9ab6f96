"""Start-up figures, measured side by side in one run (medians over repeated launches).

    python bench/startup.py [--runs N] [--json]

Prints the median, min and max seconds of: `python -c pass`, `python -c "import anthropic"`,
`agent --version`, `agent --help`, `agent run` from launch to its first request reaching the
test model server, and `agent chat` from launch to its prompt being drawn in a pseudo-terminal.
Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from common import AGENT, REPO, Figure, first_request, report

from tests.fake_model import FakeAnthropic


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def chat_prompt(env: dict[str, str], workspace: str) -> float:
    """Launch `agent chat` in a pseudo-terminal; seconds until its prompt is on screen."""
    import pexpect

    start = time.perf_counter()
    child = pexpect.spawn(
        AGENT[0], [*AGENT[1:], "chat"], cwd=workspace, env=env, dimensions=(40, 140)
    )
    child.expect("you>", timeout=30)
    elapsed = time.perf_counter() - start
    child.sendcontrol("d")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    return elapsed


def measure(probes: dict[str, Callable[[], float]], runs: int) -> dict[str, list[float]]:
    """Interleaved: each repetition runs every probe once, so drift in the machine's load hits
    all figures alike and the ratios between them stay fair."""
    for probe in probes.values():
        probe()  # warm the file cache
    figures: dict[str, list[float]] = {name: [] for name in probes}
    for _ in range(runs):
        for name, probe in probes.items():
            figures[name].append(probe())
    return figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = args.runs
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory() as workspace, FakeAnthropic() as server:
        run_env = {
            **env,
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "sk-test-" + "k" * 32,
            "HOME": workspace,
        }
        chat_env = {**run_env, "TERM": "xterm-256color"}
        probes: dict[str, Callable[[], float]] = {
            "python -c pass": lambda: timed([sys.executable, "-c", "pass"]),
            "import anthropic": lambda: timed([sys.executable, "-c", "import anthropic"]),
            "agent --version": lambda: timed([*AGENT, "--version"], env),
            "agent --help": lambda: timed([*AGENT, "--help"], env),
            "agent run → first request": lambda: first_request(server, run_env, workspace),
            "agent chat → prompt drawn": lambda: chat_prompt(chat_env, workspace),
        }
        figures = measure(probes, runs)
    med = {k: statistics.median(v) for k, v in figures.items()}
    ratio = med["agent run → first request"] / med["import anthropic"]
    checks = {
        "agent --version": (med["agent --version"] <= 0.08, "target ≤ 0.08 s"),
        "agent --help": (med["agent --help"] <= 0.2, "target ≤ 0.2 s"),
        "agent run → first request": (ratio <= 1.15, f"{ratio:.2f}x import (target ≤ 1.15x)"),
        "agent chat → prompt drawn": (
            med["agent chat → prompt drawn"] <= 0.35,
            "target ≤ 0.35 s",
        ),
    }
    rows = []
    for name, values in figures.items():
        ok, target = checks.get(name, (True, ""))
        rows.append(Figure.of(name, values, "s", target, ok))
    return report(rows, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
