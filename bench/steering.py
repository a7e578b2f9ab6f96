"""Key press -> model request latency of a steering message in `agent chat` (issue 23).

    python bench/steering.py [--runs N] [--json]

`agent chat` in a pseudo-terminal against the fake model server. Each run: the model asks for a
batch of three `bash sleep 2` calls (6 s in all, run one after the other); while the batch runs,
a message is typed at a different moment each run (Enter is the key press). It must reach the
model in the request right after the batch, so the figures are:

- key -> request: Enter to that request's arrival (depends on when in the batch it was typed);
- past the boundary: that arrival minus the end of the batch's last call (the shell writes the
  time it ended), i.e. what steering adds to the next batch boundary. Target: <= 0.1 s.
- the same without a message typed, interleaved run by run with the steered ones (the agent's
  own tool-end -> request time, which steering must not lengthen).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from common import Figure, agent_env, report

from tests.e2e.pty_screen import ENTER, ChatTerm
from tests.fake_model import FakeAnthropic

TARGET_S = 0.1
OFFSETS = (0.5, 2.5, 4.5)  # seconds into the batch at which the message is typed


def measure(
    runs: int, server: FakeAnthropic, workdir: Path
) -> tuple[list[float], list[float], list[float]]:
    env = agent_env(server.base_url, str(workdir / "home"))
    term = ChatTerm(env, workdir, "--permission-mode", "bypass", lines=50)
    to_request: list[float] = []
    past_boundary: list[float] = []
    unsteered: list[float] = []
    wall_minus_mono = time.time() - time.monotonic()
    try:
        term.wait_for("you>")
        for run in range(2 * runs):
            steer = run % 2 == 0
            end = workdir / f"end{run}"
            calls = [("bash", {"command": "sleep 2"})] * 2
            calls.append(("bash", {"command": f"sleep 2; date +%s.%N > {end}"}))
            server.script.tool_uses(*calls).text(f"steered {run}")
            first = len(server.requests)
            term.type(f"batch {run}")
            term.wait_for(lambda _t, n=first: len(server.requests) > n)
            started = server.requests[first].time
            offset = OFFSETS[run % len(OFFSETS)]
            while time.monotonic() < started + offset:
                term.pump(0.01)
            message = f"steer-{run}"
            if steer:
                term.send(message)
                term.pump(0.01)
                pressed = time.monotonic()
                term.send(ENTER)
            while len(server.requests) < first + 2:
                term.pump(0.005)
            arrival = server.requests[first + 1]
            texts = str(arrival.body["messages"][-1]["content"])
            if steer and message not in texts:
                raise RuntimeError(f"run {run}: the message missed the request after the batch")
            batch_end = float(end.read_text()) - wall_minus_mono
            if steer:
                to_request.append(arrival.time - pressed)
                past_boundary.append(arrival.time - batch_end)
            else:
                unsteered.append(arrival.time - batch_end)
            term.wait_idle()
    finally:
        term.close()
    return to_request, past_boundary, unsteered


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=6, help="steered runs (as many unsteered)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "home").mkdir()
        to_request, past, unsteered = measure(args.runs, server, Path(tmp))
    median_ok = sorted(past)[len(past) // 2] <= TARGET_S
    figures = [
        Figure.of(
            "chat: steering key -> request (3 x 2 s batch)",
            to_request,
            "s",
            "the next batch boundary",
        ),
        Figure.of(
            "chat: steering past the batch boundary",
            past,
            "s",
            f"target <= {TARGET_S} s",
            median_ok,
        ),
        Figure.of("chat: no message, batch end -> request", unsteered, "s", "(for comparison)"),
    ]
    return report(figures, args.json)


if __name__ == "__main__":
    sys.exit(main())
