"""A 1,000-round session with compaction: what the transcript costs per round, and what resuming
it costs beside a fresh start, side by side in one run.

    python bench/long_session.py [--rounds 1000] [--runs 5] [--file-bytes 480] [--line-bytes N]
                                 [--json]

One `agent run` makes `rounds` tool rounds (read_file of a ~600-byte file each) against the test
model server, with the default snip settings (trigger 50, target 30: a snip every ~10 rounds).
Figures: transcript bytes per round beyond the messages' own records (compaction and usage
records, the session line), beside what compaction records that copy the live context would
have written; then `agent run --continue` launch -> first request beside a fresh `agent run` in
an empty workspace, interleaved. Targets: <= 3 KB per round; resume <= fresh + 0.1 s.
Also what the session's folder grows by per round: the transcript, and what compaction writes
beside it (the archive of snipped messages, the outputs micro-compaction saved: views of the
transcript's lines where it holds their text, core/files/line_views.py). Issue 40's case is
`--file-bytes 6400 --line-bytes 50`: 6.4 KB files of source-length lines, ~7 KB a read as the
model sees it; its target is <= 10.5 KB per round. The files' lines are ~17 bytes unless
`--line-bytes` says otherwise: read_file numbers every line, so such short lines make a 6.4 KB
read 9.4 KB as the model sees it, and the transcript, which holds what was sent, ~11 KB a round
by itself (the target is shown against it too).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from common import AGENT, Figure, agent_env, first_request, report

from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import has_tools

SETTINGS = {"memory": {"episode_rounds": 1_000_000}, "max_turns": 10_000}


def build_session(
    server: FakeAnthropic,
    ws: Path,
    env: dict[str, str],
    rounds: int,
    size: int = 600,
    line_bytes: int = 0,
) -> float:
    (ws / ".agent").mkdir()
    (ws / ".agent" / "settings.json").write_text(json.dumps(SETTINGS))
    for i in range(50):
        line = f"line of file {i}\n"
        if line_bytes > len(line):  # lines as long as source code's, not the short default
            line = line[:-1].ljust(line_bytes - 1, ".") + "\n"
        (ws / f"f{i}.txt").write_text(line * max(1, size // len(line)))
    building = [True]  # the session's own requests; helpers and the later probes: the default
    script = server.route(lambda body: building[0] and has_tools(body))
    for i in range(rounds):
        script.tool_use("read_file", path=f"f{i % 50}.txt")
    script.text("finished")
    start = time.perf_counter()
    subprocess.run(
        [*AGENT, "run", "-q", "-p", "read them all", "--permission-mode", "bypass"],
        cwd=ws, env=env, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    building[0] = False
    return time.perf_counter() - start


def transcript_figures(ws: Path, rounds: int) -> tuple[float, float, int]:
    """(overhead bytes per round, copied-context bytes per round, compaction records)."""
    (path,) = (ws / ".transcripts").glob("*.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    records = [json.loads(line) for line in lines]
    message_bytes = sum(
        len(b) for b, r in zip(lines, records, strict=True) if r["type"] == "message"
    )
    overhead = (path.stat().st_size - message_bytes) / rounds
    copied, live = 0, []
    sizes = {}
    offset = 0
    for raw, record in zip(lines, records, strict=True):
        if record["type"] == "message":
            sizes[(offset, 0)] = len(json.dumps(record["message"]))
        elif record["type"] == "compaction":
            for n, message in enumerate(record["messages"]):
                sizes[(offset, n)] = len(json.dumps(message))
            live = [(offset if at == -1 else at, n) for at, n in record["live"]]
            copied += sum(sizes.get(ref, 0) for ref in live)
        offset += len(raw)
    compactions = sum(r["type"] == "compaction" for r in records)
    return overhead, copied / rounds, compactions


def folder_figures(ws: Path, rounds: int, size: int) -> list[Figure]:
    """KB per round of the transcript and of the copies beside it."""
    folder = ws / ".transcripts"
    (path,) = folder.glob("*.jsonl")
    parts = {
        "transcript": path.stat().st_size,
        "archive (snipped messages)": sum(p.stat().st_size for p in folder.glob("archive/*")),
        "saved outputs (micro)": sum(p.stat().st_size for p in folder.glob("tool-results/*/*")),
    }
    total = sum(parts.values()) / rounds / 1e3
    limit = size >= 6_000  # the case: 6.4 KB reads
    rows = [
        Figure.of(f"session folder KB/round ({size} B reads)", [total], "KB",
                  "≤ 10.5" if limit else "", total <= 10.5 or not limit),
    ]  # fmt: skip
    rows += [Figure.of(f"  {name}", [b / rounds / 1e3], "KB") for name, b in parts.items()]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--file-bytes", type=int, default=480, help="size of each file read")
    parser.add_argument(
        "--line-bytes", type=int, default=0, help="bytes per line of those files (default ~17)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        home, ws, fresh = Path(tmp) / "home", Path(tmp) / "ws", Path(tmp) / "fresh"
        for folder in (home, ws, fresh):
            folder.mkdir()
        env = agent_env(server.base_url, str(home))
        seconds = build_session(server, ws, env, args.rounds, args.file_bytes, args.line_bytes)
        overhead, copied, compactions = transcript_figures(ws, args.rounds)
        folder = folder_figures(ws, args.rounds, args.file_bytes)
        resumed, started = [], []
        first_request(server, env, fresh)  # warm the file cache
        for _ in range(args.runs):
            resumed.append(first_request(server, env, ws, "--continue"))
            started.append(first_request(server, env, fresh))
        size = next((ws / ".transcripts").glob("*.jsonl")).stat().st_size
    gap = sorted(r - s for r, s in zip(resumed, started, strict=True))[len(resumed) // 2]
    figures = [
        Figure.of(f"session: {args.rounds} rounds, {compactions} compactions", [seconds], "s"),
        Figure.of("transcript size", [size / 1e6], "MB"),
        Figure.of("transcript bytes/round beyond messages", [overhead], "B", "≤ 3000",
                  overhead <= 3_000),
        Figure.of("  (copying each live context would add)", [copied], "B"),
        Figure.of("--continue: launch → first request", resumed, "s"),
        Figure.of("fresh start: launch → first request", started, "s"),
        Figure.of("resume minus fresh (paired median)", [gap], "s", "≤ 0.1", gap <= 0.1),
        *folder,
    ]  # fmt: skip
    return report(figures, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
