"""Key -> prompt latency when Esc or Ctrl-C stops a slow turn in `agent chat` (issue 15).

    python bench/stop_latency.py [--runs N] [--json]

One `agent chat` per key in a pseudo-terminal against the fake model server; each run starts a
turn whose reply streams one chunk and then stalls, presses the key, and times until the screen
shows the turn stopped and the status bar no longer says it is working. Target: median < 0.1 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from common import Figure, agent_env, report

from tests.e2e.pty_screen import CTRL_C, ChatTerm
from tests.fake_model import FakeAnthropic

KEYS = {"Esc": "\x1b", "Ctrl-C": CTRL_C}
TARGET_S = 0.1


def stopped(term: ChatTerm, stops: int) -> bool:
    text = term.text()
    return text.count("⏹ interrupted") >= stops and "working…" not in text


def measure(key: str, runs: int, server: FakeAnthropic, workdir: Path) -> list[float]:
    env = agent_env(server.base_url, str(workdir / "home"))
    term = ChatTerm(env, workdir, "--permission-mode", "bypass", lines=60)
    times: list[float] = []
    try:
        term.wait_for("you>")
        for run in range(1, runs + 1):
            server.script.text("Partial words, then the rest", stall_after=4, delay=60)
            term.type(f"slow {run}")
            term.wait_for(lambda t, n=run: t.count("Partial wo") >= n)
            start = time.perf_counter()
            term.send(key)
            while not stopped(term, run):
                term.pump(0.002)
            times.append(time.perf_counter() - start)
            term.send("\x15")  # Ctrl-U: an empty input line for the next run
    finally:
        term.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = []
    with FakeAnthropic() as server:
        for name, key in KEYS.items():
            with tempfile.TemporaryDirectory() as tmp:
                (Path(tmp) / "home").mkdir()
                times = measure(key, args.runs, server, Path(tmp))
            median_ok = sorted(times)[len(times) // 2] < TARGET_S
            figures.append(
                Figure.of(f"chat: {name} stops a slow turn (key -> prompt)", times, "s",
                          f"target < {TARGET_S} s", median_ok)
            )
    return report(figures, args.json)


if __name__ == "__main__":
    sys.exit(main())
