"""Soak part (e): silent streams and long retry-afters (issue 52), for bench/soak.py.

Each session runs six tool rounds that append a unique line to a file, then a text. Every
session meets a stream silent before its first event, one silent inside a tool call's input,
and a 429 asking `retry-after: 20` (plus, at random, more of either); `stream_idle_timeout_s`
is 2. Counted: sessions completed, side effects run other than exactly once, and how far each
wait the server asked for was from the gap between the two requests in the server's own log.
Sessions run at once (each its own server and workspace), so the part takes about one long wait.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import agent_env, run_agent

from tests.fake_model import ErrorReply, FakeAnthropic
from tests.fake_model.script import Script
from tests.fake_model.server import MESSAGES_PATH

MODE = ("--permission-mode", "bypass")
SILENT = 120.0  # a stalled reply's silence, far past the bound
IDLE_S = 2
LONG_WAIT_S = 20.0
Row = tuple[str, str, bool]


def _faults(rng: random.Random, steps: int) -> list[str]:
    kinds = ["silent-first", "silent-in-tool", "retry-after"]
    kinds += [rng.choice(kinds) for _ in range(2)]
    kinds += ["none"] * (steps - len(kinds))
    rng.shuffle(kinds)
    return kinds


def _session(n: int, seed: int) -> tuple[bool, int, list[float], int]:
    """(completed, side effects not run exactly once, |gap - asked| per 429, requests)."""
    rng = random.Random(seed)
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        ws, script = Path(tmp), server.script
        asked_at: list[int] = []  # the request index each 429 answered

        def rate_limited(body: object) -> ErrorReply:
            asked_at.append(server.requests[-1].index)  # one session: requests come one by one
            return ErrorReply(429, "rate_limit_error", "slow down", retry_after=LONG_WAIT_S)

        lines = [f"s{n}-r{i}" for i in range(6)]
        steps: list[Callable[..., Script]] = [
            lambda c=f"echo {line} >> effects.txt", **kw: script.tool_use("bash", command=c, **kw)
            for line in lines
        ]
        for kind, real in zip(_faults(rng, len(steps)), steps, strict=True):
            if kind == "silent-first":
                script.text("never", stall_after=0, delay=SILENT)
            elif kind == "silent-in-tool":  # start, one input delta, then nothing
                real(stall_after=4, delay=SILENT)
            elif kind == "retry-after":
                script.respond(rate_limited)
            real()
        script.text("all done")
        env = {**agent_env(server.base_url, tmp), "AGENT_SETTINGS": json.dumps(_SETTINGS)}
        out = run_agent(env, ws, "run", "-q", "-p", "go", *MODE, timeout=600)
        effects = (ws / "effects.txt").read_text().split() if (ws / "effects.txt").exists() else []
        wrong = sum(1 for line in lines if effects.count(line) != 1)
        sent = [r for r in server.requests if r.path == MESSAGES_PATH]
        gaps = [
            abs(next(r.time for r in sent if r.index > i) - server.requests[i].time - LONG_WAIT_S)
            for i in asked_at
        ]
        ok = out.returncode == 0 and not server.violations and out.stdout.strip() == "all done"
        return ok, wrong, gaps, len(sent)


_SETTINGS = {"stream_idle_timeout_s": IDLE_S}


def stall_rows(sessions: int, rng: random.Random) -> list[Row]:
    seeds = [rng.randrange(2**32) for _ in range(sessions)]
    with ThreadPoolExecutor(max_workers=sessions) as pool:
        results = list(pool.map(_session, range(sessions), seeds))
    completed = sum(ok for ok, *_ in results)
    wrong = sum(w for _, w, *_ in results)
    gaps = [g for *_, gs, _ in results for g in gs]
    worst = max(gaps, default=0.0)
    requests = sum(r for *_, r in results)
    return [
        ("(e) silent-stream / retry-after sessions completed", f"{completed}/{sessions}",
         completed == sessions),
        ("(e) side effects run other than exactly once", str(wrong), wrong == 0),
        (f"(e) retry-after: {LONG_WAIT_S:g} waits, worst |gap - asked| (s, server log)",
         f"{len(gaps)}, {worst:.2f}", bool(gaps) and worst < 1.5),
        ("(e) model requests (each fault costs one)", str(requests), True),
    ]  # fmt: skip
