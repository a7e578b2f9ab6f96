"""What `agent batch` costs: N tiny tasks (default 50) at --jobs 1, 4 and 16 against the fake
server answering each request after 1 s, beside N sequential `agent run`s in the same
repository: wall time, and the peak memory of the whole process tree (the batch and every
run it started), sampled every 50 ms from /proc.

    python bench/batch.py [--tasks 50] [--latency 1.0] [--json]

Both sides run in-process runs (AGENT_NO_SERVER=1, as the other benches) so the memory is the
runs' own; each task also pays for its worktree (create, diff, remove)."""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from common import AGENT, Figure, agent_env, report

from tests.fake_model import FakeAnthropic


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_mib(root: int) -> float:
    tree, total, todo = _children(), 0, [root]
    while todo:
        pid = todo.pop()
        total += _rss_kib(pid)
        todo += tree.get(pid, [])
    return total / 1024


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak MiB of the process tree of one command."""
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    peak = [0.0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], tree_rss_mib(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} exited {proc.returncode}: {err.decode()[-400:]}")
    return time.monotonic() - start, peak[0]


def make_repo(path: Path) -> None:
    path.mkdir()
    for args in (["init", "-q"], ["config", "user.email", "b@x"], ["config", "user.name", "b"]):
        subprocess.run(["git", *args], cwd=path, check=True)
    (path / "a.txt").write_text("a\n")
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-qm", "a"], cwd=path, check=True)


def sequential(n: int, repo: Path, env: dict[str, str]) -> tuple[float, float]:
    start, peak = time.monotonic(), 0.0
    for i in range(n):
        _, mib = timed([*AGENT, "run", "-q", "-p", f"task {i}: say ok"], repo, env)
        peak = max(peak, mib)
    return time.monotonic() - start, peak


def measure(n: int, latency: float) -> list[Figure]:
    figures: list[Figure] = []
    with FakeAnthropic() as server, tempfile.TemporaryDirectory() as tmp:
        for _ in range(n * 4):
            server.script.text("ok", delay=latency)
        home = Path(tmp) / "home"
        home.mkdir()
        env = agent_env(server.base_url, str(home))
        repo = Path(tmp) / "repo"
        make_repo(repo)
        tasks = Path(tmp) / "tasks.jsonl"
        tasks.write_text(
            "".join(
                json.dumps({"id": f"t{i}", "prompt": f"task {i}: say ok"}) + "\n" for i in range(n)
            )
        )
        wall, peak = sequential(n, repo, env)
        figures += [
            Figure.of(f"{n} sequential agent runs: wall", [wall], "s"),
            Figure.of(f"{n} sequential agent runs: peak memory", [peak], "MiB"),
        ]
        for jobs in (1, 4, 16):
            out = Path(tmp) / f"out-{jobs}"
            argv = [*AGENT, "batch", str(tasks), "--jobs", str(jobs), "--out", str(out), "--json"]
            wall_b, peak_b = timed(argv, repo, env)
            figures += [
                Figure.of(
                    f"batch --jobs {jobs}: wall", [wall_b], "s", f"{wall / wall_b:.2f}x faster"
                ),
                Figure.of(f"batch --jobs {jobs}: peak memory", [peak_b], "MiB"),
            ]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    return report(measure(args.tasks, args.latency), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
