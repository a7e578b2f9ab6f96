"""Soak (d): `kill -9` of the agent at random moments within the first 100 ms of a command,
with two busy processes beside it, in-process and through the warm process.

Each trial is one `agent run` whose first model reply starts a command: a foreground bash, a
background bash, or a pre_tool_use hook, each `sleep 30 & sleep 30` (two processes of one
group). The kill lands a uniform 0-100 ms after the model's first request arrived, so it falls
before the command started, while it starts, and just after. Then:

- processes left: every live process whose working directory is inside the trial's workspace
  (the commands, their gates and sandboxes, the warm child), 5 s after the kill;
- unreadable sessions: `agent run --resume` of its transcript (the same way) fails, or its
  first request is not valid (SPEC §16, checked by the fake server; a request the killed run
  was sending when it died arrives cut short and is no request, see tests/fake_model);
- killed runs the warm process served: the one being killed counted by the warm process
  (its pid and `served` before and after), so a run that fell back in-process is seen.

    python bench/command_kills.py [--trials 100] [--seed 7]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from common import AGENT, agent_env, run_agent
from warm_server import WarmServer

from tests.fake_model import FakeAnthropic
from tests.fake_model.script import Script

GROUP = "sleep 30 & sleep 30"
KINDS = ("foreground", "background", "hook")
SETTLE_S = 5.0


@contextlib.contextmanager
def busy(count: int = 2) -> Iterator[None]:
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def left_in(ws: Path) -> list[int]:
    """Live processes working inside `ws`, from /proc."""
    root, found = str(ws.resolve()), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = str((entry / "cwd").readlink())
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (cwd == root or cwd.startswith(root + "/")):
            found.append(int(entry.name))
    return found


def settle(ws: Path) -> list[int]:
    deadline = time.monotonic() + SETTLE_S
    while (left := left_in(ws)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:  # counted; cleared so that they weigh on no later trial
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


def _script(server: FakeAnthropic, ws: Path, kind: str) -> None:
    if kind == "hook":
        hook = {"command": GROUP, "matcher": "bash", "timeout_s": 60}
        (ws / ".agent").mkdir()
        (ws / ".agent" / "settings.json").write_text(
            json.dumps({"hooks": {"pre_tool_use": [hook]}})
        )
        server.script.tool_use("bash", command="true")
    else:
        background = kind == "background"
        server.script.tool_use("bash", command=GROUP, run_in_background=background)
    server.script.text("never reached")


def warm_env(env: dict[str, str], warm: WarmServer) -> dict[str, str]:
    served = {**env, "AGENT_SERVER": "1", "XDG_RUNTIME_DIR": warm.env["XDG_RUNTIME_DIR"]}
    served.pop("AGENT_NO_SERVER", None)
    return served


def served_mark(warm: WarmServer) -> tuple[int, int]:
    status = warm.status() or {}
    return int(status.get("pid", -1)), int(status.get("served", -1))


def trial(rng: random.Random, kind: str, warm: WarmServer, through: bool) -> tuple[int, bool, bool]:
    """(processes left, session unreadable, the killed run served warm); the kill through the
    warm process or in-process, the resume always through it (the same file is read either
    way, and it starts fast)."""
    mark = served_mark(warm) if through else (-1, -1)
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        env = agent_env(server.base_url, tmp)
        env["AGENT_TRUST_WORKSPACE"] = "1"  # the hook is the workspace's own
        _script(server, ws, kind)
        cmd = [*AGENT, "run", "-q", "-p", "work", "--permission-mode", "bypass"]
        run_env = warm_env(env, warm) if through else env
        agent = subprocess.Popen(
            cmd, cwd=ws, env=run_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while not server.requests and agent.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(rng.uniform(0, 0.1))
        agent.send_signal(signal.SIGKILL)
        agent.wait()
        left = settle(ws)
        after = served_mark(warm) if through else (-1, 0)
        warm_served = after[0] == mark[0] != -1 and after[1] == mark[1] + 1
        before = len(server.requests)
        server.route(lambda body: "go on" in json.dumps(body["messages"][-1]), Script().text("ok"))
        transcripts = list((ws / ".transcripts").glob("*.jsonl"))
        unreadable, resume_env = False, warm_env(env, warm)
        for path in transcripts:
            out = run_agent(resume_env, ws, "run", "-q", "--resume", path.stem, "-p", "go on")
            sent = len(server.requests) > before
            unreadable |= out.returncode != 0 or not sent or bool(server.violations)
        settle(ws)
        return len(left), unreadable, warm_served


def rows(trials: int, rng: random.Random) -> list[tuple[str, str, bool]]:
    found: list[tuple[str, str, bool]] = []
    with busy(), tempfile.TemporaryDirectory() as home:
        warm = WarmServer(agent_env("http://127.0.0.1:9", home))
        warm.start()
        try:
            for way, through in (("warm process", True), ("in-process", False)):
                results = []
                for i in range(trials):
                    results.append(trial(rng, KINDS[i % len(KINDS)], warm, through))
                    print(f"{way} {i + 1}/{trials}: {results[-1]}", file=sys.stderr, flush=True)
                left = sum(n for n, _, _ in results)
                unreadable = sum(u for _, u, _ in results)
                name = f"(d) kill -9 in a command's first 100 ms, {way}:"
                found.append((f"{name} processes left", str(left), left == 0))
                found.append((f"{name} unreadable sessions", str(unreadable), unreadable == 0))
                if through:
                    served = sum(w for *_, w in results)
                    row = "(d) killed runs the warm process served"
                    found.append((row, f"{served}/{trials}", served == trials))
        finally:
            warm.stop()
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    found = rows(args.trials, random.Random(args.seed))
    for name, value, ok in found:
        print(f"{name:<72} {value:>6}  {'ok' if ok else 'MISSED'}")
    return 0 if all(ok for *_, ok in found) else 1


if __name__ == "__main__":
    raise SystemExit(main())
