"""Time per tool round and peak memory, the agent beside the reference loop, in one run.

    python bench/rounds.py [--runs N] [--json]

A zero-latency scripted model asks for `read_file` ROUNDS times, then answers. The time per round
is (last request arrival - first request arrival) / (ROUNDS), both measured by the server, so
process start-up is not counted. Peak memory is the agent process's max RSS over a 60-round
session. Targets: per-round time ≤ 1.3x the reference loop's; peak memory ≤ 120 MiB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from common import AGENT, Figure, agent_env, peak_rss_mib, report, run_agent

from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import has_tools

ROUNDS = 50
MEMORY_ROUNDS = 60


def script_session(server: FakeAnthropic, workspace: Path, rounds: int) -> None:
    # a session this long writes an episode (SPEC §10): its tool-less calls get their own script
    server.route(has_tools(False)).respond(lambda body: "no episode", times=50)
    for i in range(rounds):
        (workspace / f"f{i}.txt").write_text(f"line {i}\n" * 40)
        server.script.tool_use("read_file", path=f"f{i}.txt")
    server.script.text("done")


def per_round(server: FakeAnthropic, cmd: list[str], env: dict[str, str], workspace: Path) -> float:
    script_session(server, workspace, ROUNDS)
    first = len(server.requests)
    proc = subprocess.run(cmd, env=env, cwd=workspace, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {proc.stderr[-2000:]}")
    times = [r.time for r in server.requests[first:] if r.body.get("tools")]
    return (times[-1] - times[0]) / ROUNDS


def agent_request_shape(server: FakeAnthropic, env: dict[str, str], workspace: Path) -> Path:
    """The agent's system prompt and tool schemas, for the reference loop to send too."""
    server.script.text("ok")
    first = len(server.requests)
    run_agent(env, workspace, "run", "-q", "-p", "hi")
    body = server.requests[first].body
    path = workspace / "shape.json"
    path.write_text(json.dumps({"system": body["system"], "tools": body["tools"]}))
    return path


def session_peak_rss(server: FakeAnthropic, env: dict[str, str], workspace: Path) -> float:
    script_session(server, workspace, MEMORY_ROUNDS)
    return peak_rss_mib([*AGENT, "run", "-q", "-p", "read them all"], env, workspace)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    agent_times: list[float] = []
    ref_times: list[float] = []
    memory: list[float] = []
    with FakeAnthropic() as server:
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                ws = Path(tmp)
                env = agent_env(server.base_url, tmp)
                shape = agent_request_shape(server, env, ws)
                ref = [sys.executable, str(Path(__file__).parent / "ref_loop.py"), "go", tmp]
                ref.append(str(shape))
                agent = [*AGENT, "run", "-q", "-p", "go", "--max-turns", "500"]
                pair = [(ref, ref_times), (agent, agent_times)]
                for cmd, times in pair if run % 2 == 0 else reversed(pair):  # alternate order
                    times.append(per_round(server, cmd, env, ws))
        for _ in range(max(1, args.runs // 2)):
            with tempfile.TemporaryDirectory() as tmp:
                memory.append(session_peak_rss(server, agent_env(server.base_url, tmp), Path(tmp)))
    ratio = sorted(a / r for a, r in zip(agent_times, ref_times, strict=True))[
        len(agent_times) // 2
    ]
    ms = [t * 1000 for t in agent_times]
    ref_ms = [t * 1000 for t in ref_times]
    figures = [
        Figure.of("reference loop: time per tool round", ref_ms, "ms"),
        Figure.of(
            "agent: time per tool round",
            ms,
            "ms",
            f"{ratio:.2f}x reference (target ≤ 1.3x)",
            ratio <= 1.3,
        ),
        Figure.of(
            f"agent: peak memory, {MEMORY_ROUNDS}-round session",
            memory,
            "MiB",
            "target ≤ 120 MiB",
            max(memory) <= 120,
        ),
    ]
    return report(figures, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
