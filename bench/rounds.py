"""Time per tool round and peak memory, the agent beside the reference loop, in one run.

    python bench/rounds.py [--runs N] [--json]

A zero-latency scripted model asks for `read_file` ROUNDS times, then answers. The time per round
is (last request arrival - first request arrival) / (ROUNDS), both measured by the server, so
process start-up is not counted. Both programs send the same requests (the agent's system prompt,
tools and max_tokens; the same history, tool_use ids and cache markers aside: checked each run): the agent's
snip would otherwise cut its history to 30 messages at 50 while the reference's grows to 101, and
a smaller body is less to encode and parse per round. The agent still runs every context stage
each round; none has anything to do. The ratio is the median of each run's agent/reference pair
(the two run back to back, in alternating order). Peak memory is the agent process's max RSS over
a 60-round session (default settings). Targets: per-round time ≤ 1.15x the reference loop's
(issue 58); peak memory ≤ 120 MiB.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import AGENT, Figure, agent_env, peak_rss_mib, report, run_agent

from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import has_tools

ROUNDS = 50
MEMORY_ROUNDS = 60
RATIO_TARGET = 1.15
# no snip in the timed sessions: the agent's history stays the reference's (see the docstring)
SAME_HISTORY = {"context": {"snip_trigger": 4 * ROUNDS, "snip_target": 2 * ROUNDS}}


def script_session(server: FakeAnthropic, workspace: Path, rounds: int) -> None:
    # a session this long writes an episode (SPEC §10): its tool-less calls get their own script
    server.route(has_tools(False)).respond(lambda body: "no episode", times=50)
    for i in range(rounds):
        (workspace / f"f{i}.txt").write_text(f"line {i}\n" * 40)
        server.script.tool_use("read_file", path=f"f{i}.txt")
    server.script.text("done")


def per_round(
    server: FakeAnthropic, cmd: list[str], env: dict[str, str], workspace: Path
) -> tuple[float, list[int]]:
    """Seconds per round, and the size of each request's history (to check both sent alike)."""
    script_session(server, workspace, ROUNDS)
    first = len(server.requests)
    proc = subprocess.run(cmd, env=env, cwd=workspace, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {proc.stderr[-2000:]}")
    sent = [r for r in server.requests[first:] if r.body.get("tools")]
    return (sent[-1].time - sent[0].time) / ROUNDS, [_history_size(r.body) for r in sent]


def _history_size(body: dict[str, object]) -> int:
    """The request's messages in characters, tool_use ids (the server numbers them) and the
    agent's prompt-cache marker (40 characters on the last block) aside."""
    text = json.dumps(body.get("messages"))
    text = text.replace(', "cache_control": {"type": "ephemeral"}', "")
    return len(re.sub(r"toolu_[A-Za-z0-9_]+", "toolu_", text))


def agent_request_shape(server: FakeAnthropic, env: dict[str, str], workspace: Path) -> Path:
    """The agent's system prompt and tool schemas, for the reference loop to send too."""
    server.script.text("ok")
    first = len(server.requests)
    run_agent(env, workspace, "run", "-q", "-p", "hi")
    body = server.requests[first].body
    path = workspace / "shape.json"
    shape = {key: body[key] for key in ("system", "tools", "max_tokens")}
    path.write_text(json.dumps(shape))
    return path


def session_peak_rss(server: FakeAnthropic, env: dict[str, str], workspace: Path) -> float:
    script_session(server, workspace, MEMORY_ROUNDS)
    return peak_rss_mib([*AGENT, "run", "-q", "-p", "read them all"], env, workspace)


def timed_pair(server: FakeAnthropic, ws: Path, reverse: bool) -> tuple[float, float]:
    """Seconds per round of the reference loop and of the agent, run back to back in `ws`."""
    env = agent_env(server.base_url, str(ws))
    env["XDG_CONFIG_HOME"] = str(ws / ".config")
    settings = ws / ".config" / "agent" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(SAME_HISTORY))
    shape = agent_request_shape(server, env, ws)
    ref = [sys.executable, str(Path(__file__).parent / "ref_loop.py"), "go", str(ws), str(shape)]
    agent = [*AGENT, "run", "-q", "-p", "go", "--max-turns", "500"]
    order = [ref, agent][::-1] if reverse else [ref, agent]  # alternate which one goes first
    measured = {id(cmd): per_round(server, cmd, env, ws) for cmd in order}
    (ref_s, ref_sent), (agent_s, agent_sent) = measured[id(ref)], measured[id(agent)]
    if ref_sent != agent_sent:
        raise RuntimeError(f"the agent and the reference sent different histories: {agent_sent} "
                           f"vs {ref_sent} characters")  # fmt: skip
    return ref_s, agent_s


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
                ref, agent = timed_pair(server, Path(tmp), reverse=run % 2 == 1)
                ref_times.append(ref)
                agent_times.append(agent)
        for _ in range(max(1, args.runs // 2)):
            with tempfile.TemporaryDirectory() as tmp:
                memory.append(session_peak_rss(server, agent_env(server.base_url, tmp), Path(tmp)))
    ratios = [a / r for a, r in zip(agent_times, ref_times, strict=True)]
    ratio = statistics.median(ratios)
    ms = [t * 1000 for t in agent_times]
    ref_ms = [t * 1000 for t in ref_times]
    figures = [
        Figure.of("reference loop: time per tool round", ref_ms, "ms"),
        Figure.of("agent: time per tool round", ms, "ms"),
        Figure.of(
            "agent / reference: time per tool round",
            ratios,
            "x",
            f"median of {len(ratios)} pairs {ratio:.2f}x (target ≤ {RATIO_TARGET}x)",
            ratio <= RATIO_TARGET,
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
