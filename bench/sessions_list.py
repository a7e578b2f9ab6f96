"""`agent sessions list` with many sessions, side by side with the interpreter's own start.

    python bench/sessions_list.py [--sessions 200] [--turns 12] [--runs 15] [--json]

A state directory gets `--sessions` transcripts written by the agent's own TranscriptWriter,
each `--turns` prompts long (a prompt, two tool rounds with 2 KB results, an answer, usage
records: about 100 KB a session), every fifth one a fork of the one before. Figures, each run
interleaved with the others: `python -c pass`, `agent --version`, `agent sessions list`
(target ≤ 0.3 s), the same after one session grew by a turn, and the first listing, before
the listing's record (`.transcripts/listing.json`) exists. Bytecode is written as for an
installed package (PYTHONDONTWRITEBYTECODE is dropped).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import AGENT, REPO, Figure, report

from agent_cli.core.files.paths import Paths
from agent_cli.session.fork import fork_transcript
from agent_cli.session.listing import CACHE
from agent_cli.session.transcript import (
    MessageRecord,
    SessionRecord,
    TranscriptWriter,
    UsageRecord,
)

TARGET = 0.3
RESULT = "x" * 2000


def turn(writer: TranscriptWriter, n: int) -> None:
    prompt = f"prompt {n} of {writer.path.stem}: fix it"
    writer.append(MessageRecord(message={"role": "user", "content": prompt}))
    for call in range(2):
        use_id = f"toolu_{n}_{call}"
        use = {"type": "tool_use", "id": use_id, "name": "read_file", "input": {"path": "a.py"}}
        writer.append(MessageRecord(message={"role": "assistant", "content": [use]}))
        result = {"type": "tool_result", "tool_use_id": use_id, "content": RESULT}
        writer.append(MessageRecord(message={"role": "user", "content": [result]}))
        writer.append(UsageRecord(caller="main", model="m", usage={"input_tokens": 900}))
    answer = {"type": "text", "text": f"done with {n}. " * 20}
    writer.append(MessageRecord(message={"role": "assistant", "content": [answer]}))


def make_sessions(paths: Paths, sessions: int, turns: int) -> Path:
    last = paths.transcript("none")
    for n in range(sessions):
        sid = f"20261203-{n:06d}-bench{n % 10}"
        path = paths.transcript(sid)
        if n % 5 == 4:  # a fork of the one before, with a turn of its own
            time.sleep(0.002)  # as a person forks: after the parent's last record
            header = SessionRecord(id=sid, workspace="w", model="m", forked_from=last.stem)
            fork_transcript(last, path, header)
        else:
            TranscriptWriter(path).append(SessionRecord(id=sid, workspace="w", model="m"))
        writer = TranscriptWriter(path)
        if n % 5 == 4:
            time.sleep(0.002)
        for t in range(1 if n % 5 == 4 else turns):
            turn(writer, t)
        last = path
    return last


CPU: dict[str, list[float]] = {}  # the same runs' CPU seconds (user + system), by command


def timed(cmd: list[str], env: dict[str, str], cwd: Path, name: str = "") -> float:
    """Wall seconds; the CPU seconds go to CPU, a figure the other programs on a shared
    machine do not move as they move the wall clock."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    CPU.setdefault(name, []).append(used)
    return wall


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO), "AGENT_NO_SERVER": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("AGENT_STATE_DIR", None)
    with tempfile.TemporaryDirectory() as root:
        ws = Path(root)
        env["HOME"] = root
        paths = Paths(ws)
        grown = make_sessions(paths, args.sessions, args.turns)
        size = sum(p.stat().st_size for p in paths.transcripts.glob("*.jsonl"))
        listing = [*AGENT, "sessions", "list"]

        def first() -> float:
            (paths.transcripts / CACHE).unlink(missing_ok=True)
            return timed(listing, env, ws)

        def after_growth() -> float:
            turn(TranscriptWriter(grown), 99)
            return timed(listing, env, ws)

        probes: dict[str, Callable[[], float]] = {
            "python -c pass": lambda: timed([sys.executable, "-c", "pass"], env, ws, "pass"),
            "agent --version": lambda: timed([*AGENT, "--version"], env, ws, "version"),
            f"agent sessions list ({args.sessions} sessions)": lambda: timed(
                listing, env, ws, "list"
            ),
            "  after one session grew by a turn": after_growth,
            "  the first listing (nothing kept yet)": first,
        }
        for probe in probes.values():
            probe()  # bytecode written, files in the page cache
        figures: dict[str, list[float]] = {name: [] for name in probes}
        for _ in range(args.runs):
            for name, probe in probes.items():
                figures[name].append(probe())
    load = os.getloadavg()[0]
    print(f"{args.sessions} sessions, {size / 1e6:.1f} MB of transcripts; load {load:.1f}")
    rows = []
    for name, values in figures.items():
        target, ok = "", True
        if name.startswith(("agent sessions list", "  after")):
            ok = sorted(values)[len(values) // 2] <= TARGET
            target = f"target ≤ {TARGET} s"
        rows.append(Figure.of(name, values, "s", target, ok))
    for name, label in (("pass", "python -c pass"), ("version", "agent --version")):
        rows.append(Figure.of(f"  CPU seconds: {label}", CPU[name][1:], "s"))
    cpu_list = CPU["list"][1:]
    ok = sorted(cpu_list)[len(cpu_list) // 2] <= TARGET
    rows.append(Figure.of("  CPU seconds: agent sessions list", cpu_list, "s", "≤ 0.3 s", ok))
    return report(rows, args.json)


if __name__ == "__main__":
    sys.exit(main())
