"""Wall time of three parallel subagents against one (SPEC §7: `task` calls of a round run
concurrently).

    python bench/subagent_parallel.py [--runs N] [--json]

The parent asks for N `task` calls in one round; each subagent's only request takes DELAY
seconds at the scripted model and hands in its note. The round's wall time is measured by the
server, from the parent's first request to its second. Target: three ≤ 1.5x one.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from common import Figure, agent_env, report, run_agent

from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import first_user_contains, system_contains

DELAY = 1.0
SUBAGENT = system_contains("You are a subagent")


def round_time(workers: int) -> float:
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        for n in range(workers):
            marker = f"investigate area {n}"
            route = server.route(lambda b, m=marker: SUBAGENT(b) and first_user_contains(m)(b))
            route.tool_use(
                "submit_note", conclusion=f"area {n} is fine", confidence="high", delay=DELAY
            )
        tasks = [
            ("task", {"description": f"area {n}", "prompt": f"investigate area {n}"})
            for n in range(workers)
        ]
        server.script.tool_uses(*tasks)
        server.script.text("done")
        proc = run_agent(agent_env(server.base_url, tmp), Path(tmp), "run", "-q", "-p", "go")
        if proc.returncode != 0 or server.violations:
            raise RuntimeError(f"run failed: {proc.stderr[-1500:]} {server.violations}")
        parent = [r for r in server.requests if r.path == "/v1/messages" and not SUBAGENT(r.body)]
        return parent[1].time - parent[0].time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    one: list[float] = []
    three: list[float] = []
    for _ in range(args.runs):
        one.append(round_time(1))
        three.append(round_time(3))
    ratio = sorted(t / o for t, o in zip(three, one, strict=True))[len(one) // 2]
    figures = [
        Figure.of("one subagent: round wall time", one, "s"),
        Figure.of(
            "three parallel subagents: round wall time",
            three,
            "s",
            f"{ratio:.2f}x one (target ≤ 1.5x)",
            ratio <= 1.5,
        ),
    ]
    return report(figures, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
