"""Key -> prompt latency when Esc or Ctrl-C stops a slow turn in `agent chat` (issue 15).

    python bench/stop_latency.py [--runs N] [--json]

One `agent chat` per key in a pseudo-terminal against the fake model server, the runs of the two
keys interleaved; each run starts a turn whose reply streams one chunk and then stalls, presses
the key, and times until the terminal has received the stopped turn (its `⏹ interrupted` line,
drawn after the status bar stopped saying it works). The bytes are read as they come and the
terminal emulator (pyte, pure Python and slow) is fed only after the clock stops: its own
parsing is not the program's latency. The screen is then checked: stopped, prompt back.
Target: median < 0.1 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect
from common import Figure, agent_env, report

from tests.e2e.pty_screen import CTRL_C, ChatTerm
from tests.fake_model import FakeAnthropic

KEYS = {"Esc": "\x1b", "Ctrl-C": CTRL_C}
TARGET_S = 0.1


def stopped(text: str, run: int) -> bool:
    after = text.rpartition(f"you> slow {run}")[2]
    return "⏹ interrupted" in after and "working…" not in after and "you>" in after


MARKER = "⏹ interrupted".encode()


def one_stop(term: ChatTerm, key: str, run: int) -> float:
    term.type(f"slow {run}")
    term.wait_for(lambda t: f"you> slow {run}\nPartial wo" in t and "working…" in t)
    seen = term.raw.count(MARKER)
    received = b""
    start = time.perf_counter()
    term.send(key)
    while (term.raw + received).count(MARKER) <= seen:
        try:
            received += term.child.read_nonblocking(65536, timeout=0.001)
        except pexpect.TIMEOUT:
            continue
    took = time.perf_counter() - start
    term.raw += received
    term.stream.feed(received)  # now the screen: the turn stopped, the prompt is back
    term.wait_for(lambda t: stopped(t, run), 10)
    term.send("\x15")  # Ctrl-U: an empty input line for the next run
    return took


def measure(runs: int, server: FakeAnthropic, workdir: Path) -> dict[str, list[float]]:
    terms: dict[str, ChatTerm] = {}
    times: dict[str, list[float]] = {name: [] for name in KEYS}
    try:
        for name in KEYS:
            (workdir / name / "home").mkdir(parents=True)
            env = agent_env(server.base_url, str(workdir / name / "home"))
            terms[name] = ChatTerm(env, workdir / name, "--permission-mode", "bypass", lines=60)
            terms[name].wait_for("you>")
        for run in range(1, runs + 1):
            for name, key in KEYS.items():  # interleaved: both keys see the same machine
                server.script.text("Partial words, then the rest", stall_after=4, delay=60)
                times[name].append(one_stop(terms[name], key, run))
    finally:
        for term in terms.values():
            term.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = []
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        measured = measure(args.runs, server, Path(tmp))
    for name, times in measured.items():
        median_ok = statistics.median(times) < TARGET_S
        figures.append(
            Figure.of(
                f"chat: {name} stops a slow turn (key -> prompt)",
                times,
                "s",
                f"target < {TARGET_S} s",
                median_ok,
            )
        )
    return report(figures, args.json)


if __name__ == "__main__":
    sys.exit(main())
