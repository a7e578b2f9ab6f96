"""Background sessions (issue 55): what an idle one costs, and how fast `agent ps` answers.

    python bench/background.py [--sessions 20] [--records 100] [--runs 11] [--json]

- Private memory per idle background session: `--sessions` sessions started with
  `agent run --bg` against the test model server, each answered at once and left `idle`; each
  process's private pages (Private_Clean + Private_Dirty of /proc/PID/smaps_rollup), the memory
  that would be freed if it ended (target ≤ 30 MiB). They are forked from a warm process of the
  bench's own (its own private memory, and a warm `agent run` child's, are shown beside);
  `--spawned`: without one, each started as a process of its own (the fallback).
- `agent ps --json` with `--records` recorded sessions (ended ones, written by the registry's own
  `update`), from process start to its exit (target ≤ 0.15 s).
- attach -> history drawn: `agent attach NAME` in a pseudo-terminal (80x24) on a session waiting
  on an approval after a dozen calls, from its start until the line after the last history line
  is on the screen (target ≤ 0.3 s).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect
import pyte
from common import AGENT, Figure, agent_env, report
from warm_server import WarmServer

from tests.e2e.pty_screen import _HistoryScreen
from tests.fake_model import FakeAnthropic

MEMORY_TARGET_MIB = 30.0
PS_TARGET_S = 0.15
WAIT_S = 300.0
SLOW, SLOW_S = "answer slowly", 3.0  # the warm run measured while it waits for its reply
ATTACH_TARGET_S, ATTACH_CALLS = 0.3, 12


def private_mib(pid: int) -> float:
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Private_Clean", "Private_Dirty"):
            fields[name] = int(rest.split()[0])
    return sum(fields.values()) / 1024


def _ps(env: dict[str, str], cwd: Path) -> list[dict[str, object]]:
    out = subprocess.run(
        [*AGENT, "ps", "--json"], env=env, cwd=cwd, capture_output=True, text=True, check=True
    )
    listed = json.loads(out.stdout)
    assert isinstance(listed, list)
    return listed


def idle_memory(sessions: int, spawned: bool) -> list[Figure]:
    """Private MiB of each idle background session's process: forked from a warm process of
    the bench's own (and that process's own, and a warm `agent run` child's beside them), or
    with `spawned` each a process of its own (the fallback: no warm process)."""
    home, ws = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    with FakeAnthropic() as server:
        server.route(lambda body: SLOW in json.dumps(body)).text("ok", delay=SLOW_S)
        server.route(lambda body: True).respond(lambda body: "ok", times=sessions * 4)
        env = agent_env(server.base_url, str(home))
        env["XDG_STATE_HOME"] = str(home / "state")
        warm = None if spawned else WarmServer(env)
        if warm is not None:
            warm.start()
            env = warm.env
        try:
            values = _idle_sessions(env, ws, sessions)
            how = "spawned" if spawned else "forked"
            figures = [Figure.of(
                f"private memory per idle session ({sessions}, {how})",
                values, "MiB", f"target ≤ {MEMORY_TARGET_MIB:g} MiB",
                ok=max(values) <= MEMORY_TARGET_MIB,
            )]  # fmt: skip
            if warm is not None:
                figures += _warm_beside(warm, server, ws)
        finally:
            if warm is not None:
                warm.stop()
    return figures


def _idle_sessions(env: dict[str, str], ws: Path, sessions: int) -> list[float]:
    for i in range(sessions):
        subprocess.run(
            [*AGENT, "run", "--bg", "-p", f"say ok number {i}"],
            env=env, cwd=ws, capture_output=True, check=True,
        )  # fmt: skip
    deadline = time.monotonic() + WAIT_S
    while True:
        listed = _ps(env, ws)
        if sum(1 for s in listed if s["state"] == "idle") == sessions:
            break
        if time.monotonic() > deadline or any(s["state"] == "failed" for s in listed):
            raise RuntimeError(f"not all idle: {[s['state'] for s in listed]}")
        time.sleep(0.5)
    try:
        return [private_mib(int(str(s["pid"]))) for s in listed]
    finally:
        for s in listed:
            subprocess.run([*AGENT, "stop", str(s["name"])], env=env, cwd=ws, check=False,
                           capture_output=True)  # fmt: skip


def _warm_beside(warm: WarmServer, server: FakeAnthropic, ws: Path) -> list[Figure]:
    """The warm process's own private MiB, and a warm `agent run` child's beside it (taken
    while its request waits for the model's slow reply)."""
    status = warm.status()
    assert status is not None
    parent = int(status["pid"])
    seen = len(server.requests)
    run = subprocess.Popen(
        [*AGENT, "run", "-p", SLOW], env=warm.env, cwd=ws,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + WAIT_S
        while not any(SLOW in json.dumps(r.body) for r in server.requests[seen:]):
            if time.monotonic() > deadline or run.poll() is not None:
                raise RuntimeError("the warm run sent no request")
            time.sleep(0.05)
        children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        child = max(private_mib(int(pid)) for pid in children)  # the sessions were stopped
    finally:
        run.wait(timeout=WAIT_S)
    return [
        Figure.of("the warm process itself (private)", [private_mib(parent)], "MiB"),
        Figure.of("a warm `agent run` child (private)", [child], "MiB"),
    ]


def ps_time(records: int, runs: int) -> Figure:
    """Seconds of `agent ps --json` with `records` ended sessions recorded."""
    home = Path(tempfile.mkdtemp())
    env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    made = subprocess.run(
        [sys.executable, "-c", _RECORDS, str(records)], env=env, capture_output=True, text=True
    )
    if made.returncode != 0:
        raise RuntimeError(made.stderr[-2000:])
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        listed = _ps(env, home)
        times.append(time.perf_counter() - start)
        assert len(listed) == records, len(listed)
    return Figure.of(
        f"agent ps --json, {records} recorded",
        times,
        "s",
        f"target ≤ {PS_TARGET_S:g} s",
        ok=statistics.median(times) <= PS_TARGET_S,
    )


def attach_time(runs: int) -> list[Figure]:
    """Seconds from starting `agent attach` until its history is drawn (attach_link.py): as
    the command runs today (typer's), and through attach_quick.py (cli/entry.py's QUICK)."""
    home, ws = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    (ws / "notes.md").write_text("".join(f"- note {i}: something said\n" for i in range(60)))
    with FakeAnthropic() as server:
        for _ in range(ATTACH_CALLS):
            server.script.tool_use("read_file", path="notes.md")
        server.script.tool_use("write_file", path="out.txt", content="done")
        env = {**agent_env(server.base_url, str(home)), "XDG_STATE_HOME": str(home / "state")}
        subprocess.run([*AGENT, "run", "--bg", "--name", "held", "-p", "read the notes"],
                       env=env, cwd=ws, capture_output=True, check=True)  # fmt: skip
        deadline = time.monotonic() + WAIT_S
        while not any(s["state"] == "waiting: approval" for s in _ps(env, ws)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"not waiting: {_ps(env, ws)}")
            time.sleep(0.2)
        quick = "import sys; from agent_cli.ext.background.acp.attach_quick import quick; "
        ways = {"agent attach": [*AGENT, "attach", "held"],
                "its quick path": [sys.executable, "-c", quick + "quick(['held'])"]}  # fmt: skip
        figures = []
        for way, argv in ways.items():
            times = [_attached(argv, env, ws) for _ in range(runs)]
            figures.append(Figure.of(
                f"{way} -> history drawn ({ATTACH_CALLS + 1} calls)", times, "s",
                f"target ≤ {ATTACH_TARGET_S:g} s", ok=statistics.median(times) <= ATTACH_TARGET_S,
            ))  # fmt: skip
        subprocess.run([*AGENT, "stop", "held"], env=env, cwd=ws, capture_output=True)
    return figures


def _attached(argv: list[str], env: dict[str, str], ws: Path) -> float:
    """Seconds until `argv`'s screen (80x24) shows the line after the history; then Ctrl-D."""
    start = time.perf_counter()
    env = {**env, "TERM": "xterm-256color"}
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(ws), env=env, dimensions=(24, 80))
    screen = _HistoryScreen(80, 24, lambda data: child.send(data.encode()))
    stream = pyte.ByteStream(screen)
    try:
        while not any("── attached to held" in line for line in _lines(screen)):
            with contextlib.suppress(pexpect.TIMEOUT):
                stream.feed(child.read_nonblocking(65536, timeout=0.005))
        took = time.perf_counter() - start
        while not any(line.startswith(" held · ") for line in screen.display):
            with contextlib.suppress(pexpect.TIMEOUT):  # the screen's status bar: it reads keys
                stream.feed(child.read_nonblocking(65536, timeout=0.05))
        child.send("\x04")  # Ctrl-D: detached
        while child.isalive():
            with contextlib.suppress(pexpect.TIMEOUT, pexpect.EOF):
                stream.feed(child.read_nonblocking(65536, timeout=0.05))
    finally:
        child.close(force=True)
    return took


def _lines(screen: pyte.HistoryScreen) -> list[str]:
    old = ["".join(c.data for c in row.values()) for row in screen.history.top]
    return old + list(screen.display)


# the registry's own writer makes the records: as `agent run --bg` and its session leave them
_RECORDS = """
import sys, time
from pathlib import Path
from agent_cli.ext.background import registry
folder = registry.folder()
for i in range(int(sys.argv[1])):
    path = folder / f"{registry.key(Path('/tmp/ws'), f'task-{i}')}.json"
    registry.update(path, name=f"task-{i}", workspace="/tmp/ws", state="done", created=time.time(),
                    turns=3, cost_usd=0.01, last="answered", pid=None)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--spawned", action="store_true", help="sessions without a warm process")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = [ps_time(args.records, args.runs), *idle_memory(args.sessions, args.spawned)]
    figures += attach_time(max(args.runs // 2, 3))
    return report(figures, args.json)


if __name__ == "__main__":
    sys.exit(main())
