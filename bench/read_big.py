"""read_file of 3 lines from a 2 GB sparse file: the agent's peak memory beside its idle peak.

    python bench/read_big.py [--runs 3] [--gb 2] [--json]

Three kinds of `agent run`, interleaved, each in its own wrapper process that reports its
child's peak RSS: idle (the model answers with text), read_file limit=3 of a sparse file that
starts with 1,000 text lines (the rest a hole of NUL bytes), and read_file of a sparse file that
is all hole (binary: refused). Target: the text read's peak <= 1.2x the idle peak.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from common import AGENT, Figure, agent_env, peak_rss_mib, report

from tests.fake_model import FakeAnthropic


def make_files(folder: Path, size: int) -> None:
    with (folder / "big.txt").open("wb") as f:
        f.write(b"".join(f"line {i} of a large log\n".encode() for i in range(1_000)))
        f.truncate(size)
    with (folder / "hole.bin").open("wb") as f:
        f.truncate(size)


def peak(
    server: FakeAnthropic, env: dict[str, str], ws: Path, path: str | None
) -> tuple[float, float]:
    """(peak RSS in MiB, seconds) of one `agent run`."""
    if path is None:
        server.script.text("nothing to read")
    else:
        server.script.tool_use("read_file", path=path, limit=3).text("read")
    start = time.perf_counter()
    rss = peak_rss_mib([*AGENT, "run", "-q", "-p", "go"], env, ws)
    return rss, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gb", type=float, default=2.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    kinds = {"idle": None, "text": "big.txt", "binary": "hole.bin"}
    mem: dict[str, list[float]] = {k: [] for k in kinds}
    secs: dict[str, list[float]] = {k: [] for k in kinds}
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp) / "ws", Path(tmp) / "home"
        ws.mkdir()
        home.mkdir()
        make_files(ws, int(args.gb * 1e9))
        env = agent_env(server.base_url, str(home))
        for _ in range(args.runs):
            for kind, path in kinds.items():
                rss, seconds = peak(server, env, ws, path)
                mem[kind].append(rss)
                secs[kind].append(seconds)
        text_ok = [r for r in server.bodies() if "line 2 of a large log" in str(r["messages"])]
    ratio = sorted(t / i for t, i in zip(mem["text"], mem["idle"], strict=True))[args.runs // 2]
    figures = [
        Figure.of("idle run: peak RSS", mem["idle"], "MiB"),
        Figure.of(f"read_file 3 lines of {args.gb:g} GB: peak RSS", mem["text"], "MiB"),
        Figure.of("  ratio to idle (paired median)", [ratio], "x", "≤ 1.2", ratio <= 1.2),
        Figure.of(f"read_file of a {args.gb:g} GB hole (refused)", mem["binary"], "MiB"),
        Figure.of("idle run: wall time", secs["idle"], "s"),
        Figure.of("read_file 3 lines: wall time", secs["text"], "s"),
        Figure.of("binary refused: wall time", secs["binary"], "s"),
        Figure.of("runs whose result held the lines", [len(text_ok)], "runs", f"= {args.runs}",
                  len(text_ok) == args.runs),
    ]  # fmt: skip
    return report(figures, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
