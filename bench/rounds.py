"""Time per tool round and peak memory, the agent beside the reference loop, in one run.

    python bench/rounds.py [--runs N] [--json]

A zero-latency scripted model asks for `read_file` ROUNDS times, then answers. The time per round
is (last request arrival - first request arrival) / (ROUNDS), both measured by the server, so
process start-up is not counted. Both programs send the same requests: the agent's system
prompt, tools and max_tokens, and the same history (tool_use ids and cache markers aside,
checked each run). The agent's snip would otherwise cut its history to 30 messages at 50 while
the reference's grows to 101, and a smaller body is less to encode and parse per round; the
agent still runs every context stage each round, none has anything to do.

The ratio is the median of each run's agent/reference pair (the two run back to back, in
alternating order; 9 pairs by default: on a shared 2-core machine, pairs of the reference loop
against itself spread 0.67-1.63x, and three medians of 9 read 0.94, 0.98, 1.03). Also shown:
the ratio of the rounds after the first (what one more round costs) and the first round alone,
which holds what a turn pays once (the SDK's and the first call's imports; the agent's
checkpoint is taken when a turn first may change the workspace, so these read-only rounds take
it as the turn ends). Peak memory is the agent process's max RSS over a 60-round session
(default settings). Targets: per-round time ≤ 1.15x the reference loop's (issue 58); peak
memory ≤ 120 MiB.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from common import AGENT, Figure, agent_env, peak_rss_mib, report, run_agent

from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import has_tools
from tests.fake_model.server import Answer

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


@dataclass
class Run:
    """One program's session: when each request with tools arrived (the server's clock) and
    the CPU seconds the program had used by then."""

    times: list[float]
    cpu: list[float]


class CpuAtArrivals:
    """Reads the running program's CPU time (all its threads, in ns from /proc) as each
    request with tools arrives, in the server's thread before it answers: what the program
    spends per round, which the other programs on a shared machine do not move as they move
    the wall clock."""

    def __init__(self, server: FakeAnthropic) -> None:
        self.pid: int | None = None
        self.seconds: list[float] = []
        answer = server.answer

        def sampled(raw_path: str, headers: dict[str, str], raw: bytes) -> Answer:
            if self.pid is not None and b'"tools"' in raw:
                self.seconds.append(cpu_ns(self.pid) / 1e9)
            return answer(raw_path, headers, raw)

        server.answer = sampled  # type: ignore[method-assign]


def cpu_ns(pid: int) -> int:
    """CPU time of the process's live threads (the first field of each task's schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):  # a thread that just ended
            total += int((task / "schedstat").read_text().split()[0])
    return total


def arrivals(
    server: FakeAnthropic,
    sampler: CpuAtArrivals,
    cmd: list[str],
    env: dict[str, str],
    workspace: Path,
) -> tuple[Run, list[int]]:
    """The program's session, and the size of each request's history (to check both sent
    alike)."""
    script_session(server, workspace, ROUNDS)
    first = len(server.requests)
    proc = subprocess.Popen(
        cmd, env=env, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    sampler.pid, sampler.seconds = proc.pid, []
    _, err = proc.communicate()
    sampler.pid = None
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {err[-2000:]}")
    sent = [r for r in server.requests[first:] if r.body.get("tools")]
    run = Run([r.time for r in sent], sampler.seconds)
    return run, [_history_size(r.body) for r in sent]


def per_round(times: list[float]) -> float:
    """Seconds per round: from the first request's arrival to the last one's."""
    return (times[-1] - times[0]) / ROUNDS


def steady(times: list[float]) -> float:
    """Seconds per round after the first: what each more round costs. The first round also
    holds what is paid once a turn (the agent waits for the turn's checkpoint before its
    first tool runs; both parse their first reply)."""
    return (times[-1] - times[1]) / (ROUNDS - 1)


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


def timed_pair(
    server: FakeAnthropic, sampler: CpuAtArrivals, ws: Path, reverse: bool
) -> tuple[Run, Run]:
    """The arrivals of the reference loop's requests and of the agent's, run back to back."""
    env = agent_env(server.base_url, str(ws))
    env["XDG_CONFIG_HOME"] = str(ws / ".config")
    settings = ws / ".config" / "agent" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(SAME_HISTORY))
    shape = agent_request_shape(server, env, ws)
    ref = [sys.executable, str(Path(__file__).parent / "ref_loop.py"), "go", str(ws), str(shape)]
    agent = [*AGENT, "run", "-q", "-p", "go", "--max-turns", "500"]
    order = [ref, agent][::-1] if reverse else [ref, agent]  # alternate which one goes first
    measured = {id(cmd): arrivals(server, sampler, cmd, env, ws) for cmd in order}
    (ref_s, ref_sent), (agent_s, agent_sent) = measured[id(ref)], measured[id(agent)]
    if ref_sent != agent_sent:
        raise RuntimeError(f"the agent and the reference sent different histories: {agent_sent} "
                           f"vs {ref_sent} characters")  # fmt: skip
    return ref_s, agent_s


def round_figures(pairs: list[tuple[Run, Run]]) -> list[Figure]:
    """Per round (the target), per round after the first, the first round alone, and the CPU
    per round."""
    ms = {
        name: ([measure(r) * 1000 for r, _ in pairs], [measure(a) * 1000 for _, a in pairs])
        for name, measure in (
            ("time per tool round", lambda run: per_round(run.times)),
            ("time per tool round after the first", lambda run: steady(run.times)),
            ("first tool round", lambda run: run.times[1] - run.times[0]),
            ("CPU per tool round", lambda run: per_round(run.cpu)),
        )
    }
    ref_ms, agent_ms = ms["time per tool round"]
    ratios = [a / r for a, r in zip(agent_ms, ref_ms, strict=True)]
    ratio = statistics.median(ratios)
    ref_steady, agent_steady = ms["time per tool round after the first"]
    steady_ratios = [a / r for a, r in zip(agent_steady, ref_steady, strict=True)]
    return [
        Figure.of("reference loop: time per tool round", ref_ms, "ms"),
        Figure.of("agent: time per tool round", agent_ms, "ms"),
        Figure.of(
            "agent / reference: time per tool round",
            ratios,
            "x",
            f"median of {len(ratios)} pairs {ratio:.2f}x (target ≤ {RATIO_TARGET}x)",
            ratio <= RATIO_TARGET,
        ),
        Figure.of("agent / reference: rounds after the first", steady_ratios, "x"),
        Figure.of("reference loop: first tool round", ms["first tool round"][0], "ms"),
        Figure.of("agent: first tool round", ms["first tool round"][1], "ms"),
        *cpu_figures(*ms["CPU per tool round"]),
    ]


def cpu_figures(ref_ms: list[float], agent_ms: list[float]) -> list[Figure]:
    ratios = [a / r for a, r in zip(agent_ms, ref_ms, strict=True)]
    return [
        Figure.of("reference loop: CPU per tool round", ref_ms, "ms"),
        Figure.of("agent: CPU per tool round", agent_ms, "ms"),
        Figure.of("agent / reference: CPU per tool round", ratios, "x"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pairs: list[tuple[Run, Run]] = []
    memory: list[float] = []
    with FakeAnthropic() as server:
        sampler = CpuAtArrivals(server)
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                pairs.append(timed_pair(server, sampler, Path(tmp), reverse=run % 2 == 1))
        for _ in range(max(1, args.runs // 2)):
            with tempfile.TemporaryDirectory() as tmp:
                memory.append(session_peak_rss(server, agent_env(server.base_url, tmp), Path(tmp)))
    figures = [
        *round_figures(pairs),
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
