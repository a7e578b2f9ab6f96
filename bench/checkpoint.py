"""Checkpoint figures on a generated tree, side by side with `git status` on the same tree.

    python bench/checkpoint.py [--files 10000] [--megabytes 100] [--runs 15] [--turns 100] [--json]

A temp directory gets `--files` files (about `--megabytes` in all, random bytes, 100 folders),
committed to a git repository of its own. Figures: a checkpoint cold (an empty store), unchanged,
and with 10 files changed; `git status` of the user's repository on the same tree; the ratio of an
unchanged checkpoint to `git status` (target <= 1.5); then `--turns` turns that each change 10
files (a checkpoint at the start, a snapshot at the end, as `agent run` does): the store's growth
against the bytes changed (target: proportional, <= 1.5 bytes stored per byte changed).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import Figure, report

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.features import CheckpointSettings
from agent_cli.ext.checkpoints.rewind import open_store
from agent_cli.ext.checkpoints.store import CheckpointStore

FOLDERS = 100
CHANGED = 10


def make_tree(root: Path, files: int, megabytes: int) -> list[Path]:
    size = megabytes * 1_000_000 // files
    paths = []
    for n in range(files):
        folder = root / f"pkg{n % FOLDERS:03d}"
        folder.mkdir(exist_ok=True)
        path = folder / f"module_{n:05d}.py"
        path.write_bytes(os.urandom(size))
        paths.append(path)
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
        subprocess.run([*git, *args], cwd=root, check=True, capture_output=True)
    return paths


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def du(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def change(paths: list[Path], turn: int) -> int:
    """Rewrite 10 files (new random bytes, same size); the bytes changed."""
    changed = 0
    for k in range(CHANGED):
        path = paths[(turn * CHANGED + k * 997) % len(paths)]
        data = os.urandom(path.stat().st_size)
        path.write_bytes(data)
        changed += len(data)
    return changed


def fresh_store(root: Path) -> CheckpointStore:
    shutil.rmtree(root / ".agent", ignore_errors=True)
    store = open_store(Paths(root), root, CheckpointSettings())
    assert store is not None
    return store


def snapshot_figures(root: Path, paths: list[Path], runs: int) -> list[Figure]:
    status = ["git", "status", "--porcelain"]
    git_status = [timed(lambda: subprocess.run(status, cwd=root, capture_output=True, check=True))
                  for _ in range(runs)]  # fmt: skip
    cold, cold_cpu = [], []
    for _ in range(min(runs, 3)):
        store = fresh_store(root)
        before = children_cpu()
        cold.append(timed(lambda s=store: s.take("bench", "cold", 0)))  # type: ignore[misc]
        cold_cpu.append(children_cpu() - before)
    store.take("bench", "warm-up", 0)
    unchanged = [timed(lambda: store.take("bench", "unchanged", 0)) for _ in range(runs)]
    ten = []
    for turn in range(runs):
        change(paths, turn)
        ten.append(timed(lambda: store.take("bench", "ten changed", 0)))
    ratio = [u / g for u, g in zip(sorted(unchanged), sorted(git_status), strict=True)]
    median_ratio = sorted(unchanged)[runs // 2] / sorted(git_status)[runs // 2]
    return [
        Figure.of("checkpoint, cold (empty store)", cold, "s"),
        Figure.of("checkpoint, cold: git CPU time", cold_cpu, "s", "(user+sys of git)"),
        Figure.of("checkpoint, unchanged tree", unchanged, "s"),
        Figure.of(f"checkpoint, {CHANGED} files changed", ten, "s"),
        Figure.of("git status --porcelain (user's repo)", git_status, "s"),
        Figure("unchanged checkpoint / git status", median_ratio, min(ratio), max(ratio),
               "x", "<= 1.5", median_ratio <= 1.5),
    ]  # fmt: skip


def growth_figures(root: Path, paths: list[Path], turns: int) -> list[Figure]:
    store = fresh_store(root)
    store.take("bench", "base", 0)
    objects = store.dir / "git" / "objects"
    base, changed, per_turn = du(objects), 0, []
    for turn in range(turns):
        start = time.perf_counter()
        checkpoint = store.take("bench", f"turn {turn}", 0)
        taken = time.perf_counter() - start
        changed += change(paths, turn + 1000)  # the turn's work: not counted
        per_turn.append(taken + timed(lambda c=checkpoint: store.end_turn(c)))  # type: ignore[misc]
    grown = du(objects) - base
    ratio = grown / changed
    return [
        Figure.of(f"turn overhead (checkpoint + end, {CHANGED} files)", per_turn, "s"),
        Figure("store growth after turns", grown / 1e6, grown / 1e6, grown / 1e6, "MB",
               f"{turns} turns, {changed / 1e6:.1f} MB changed"),
        Figure("store bytes per changed byte", ratio, ratio, ratio, "x", "<= 1.5", ratio <= 1.5),
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="checkpoint-bench-") as tmp:
        root = Path(tmp) / "tree"
        root.mkdir()
        paths = make_tree(root, args.files, args.megabytes)
        figures = snapshot_figures(root, paths, args.runs)
        figures += growth_figures(root, paths, args.turns)
    return report(figures, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
