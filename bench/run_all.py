"""Run every benchmark against the test model server and write docs/benchmarks.md.

    python bench/run_all.py [--quick]

Each script runs with `--json` and prints one figure per line (median, min, max, target, ok).
`--quick` passes fewer repetitions (for a smoke run). Exits 1 when any target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from common import REPO, Figure

BENCH = Path(__file__).resolve().parent
SCRIPTS: list[tuple[str, list[str], list[str]]] = [
    # (script, normal args, quick args)
    ("startup.py", ["--runs", "15"], ["--runs", "3"]),
    ("rounds.py", ["--runs", "9"], ["--runs", "1"]),
    ("context.py", [], []),
    ("subagent_context.py", [], []),
    ("subagent_parallel.py", ["--runs", "3"], ["--runs", "1"]),
    ("web_fetch.py", ["--runs", "10"], ["--runs", "2"]),
    ("steering.py", ["--runs", "6"], ["--runs", "2"]),
    ("stop_latency.py", ["--runs", "10"], ["--runs", "3"]),
    (
        "checkpoint.py",
        ["--runs", "11"],
        ["--files", "2000", "--megabytes", "20", "--runs", "3", "--turns", "20"],
    ),
]


def machine() -> str:
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [
            ln.split(":", 1)[1].strip()
            for ln in cpuinfo.read_text().splitlines()
            if ln.startswith("model name")
        ]
        cpu = names[0] if names else cpu
    mem = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kib = int(meminfo.read_text().split()[1])
        mem = f", {kib / 1024 / 1024:.0f} GiB memory"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} cores ({cpu}){mem}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; load average at start {load:.2f}"
    )


def run_script(name: str, args: list[str]) -> tuple[list[Figure], str]:
    proc = subprocess.run(
        [sys.executable, str(BENCH / name), *args, "--json"],
        cwd=BENCH,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
    )
    figures = [
        Figure(**json.loads(line)) for line in proc.stdout.splitlines() if line.startswith("{")
    ]
    problem = "" if figures else f"{name} produced no figures: {proc.stderr[-800:]}"
    return figures, problem


def fmt(value: float) -> str:
    return f"{value:,.3f}" if value < 100 else f"{value:,.0f}"


def write_doc(rows: list[tuple[str, Figure]], problems: list[str], seconds: float) -> Path:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmarks",
        "",
        f"`python bench/run_all.py` on {stamp} ({seconds:.0f} s).",
        f"Machine: {machine()}.",
        "Times are medians over repeated runs; comparisons are ratios measured side by side in",
        "the same run, against the project's test model server (zero latency unless stated).",
        "",
        "| script | figure | median | min | max | unit | target | met |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for script, f in rows:
        met = "yes" if f.ok else "**NO**"
        lines.append(
            f"| {script} | {f.name} | {fmt(f.median)} | {fmt(f.min)} | {fmt(f.max)} | {f.unit} "
            f"| {f.target} | {met} |"
        )
    lines += ["", *[f"- {p}" for p in problems], ""]
    path = REPO / "docs" / "benchmarks.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines))
    return path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    started = time.monotonic()
    rows: list[tuple[str, Figure]] = []
    problems: list[str] = []
    for name, normal, fast in SCRIPTS:
        figures, problem = run_script(name, fast if quick else normal)
        rows += [(name, f) for f in figures]
        if problem:
            problems.append(problem)
        for f in figures:
            print(f"{name:<22} {f.line()}", flush=True)
    path = write_doc(rows, problems, time.monotonic() - started)
    print(f"wrote {path}")
    return 0 if not problems and all(f.ok for _, f in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
