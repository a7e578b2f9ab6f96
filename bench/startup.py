"""Start-up figures, measured side by side in one run (medians over repeated launches).

    python bench/startup.py [--runs N] [--json]

Prints the median, min and max seconds of: `python -c pass`, `python -c "import anthropic"`,
`agent --version`, `agent --help`, `agent run` from launch to its first request reaching the
test model server (also with one stdio MCP server that takes 3 s to start), and `agent chat`
from launch to its prompt being drawn in a pseudo-terminal. Exits 1 when a target is missed.
`--mcp-only` measures just the two `agent run` figures. Then issue 25's figures (see
bench/warm_figures.py): in-process against the warm process, beside the bare-SDK loop and a
bare httpx POST; `--warm-only` measures just those, `--baseline DIR` adds a checkout to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import AGENT, REPO, Figure, first_request, report
from warm_figures import warm_rows

from tests.fake_model import FakeAnthropic


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def mcp_home(root: str) -> str:
    """A HOME whose user config has one stdio MCP server that sleeps 3 s before serving."""
    import json

    home = Path(root) / "mcp-home"
    config = home / ".config" / "agent"
    config.mkdir(parents=True, exist_ok=True)
    server = REPO / "tests" / "e2e" / "mcp_server" / "server.py"
    spec = {"command": sys.executable, "args": [str(server), "--startup-delay", "3"]}
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {"slow": spec}}), encoding="utf-8")
    return str(home)


def chat_prompt(env: dict[str, str], workspace: str) -> float:
    """Launch `agent chat` in a pseudo-terminal; seconds until its prompt is on screen."""
    import pexpect

    start = time.perf_counter()
    child = pexpect.spawn(
        AGENT[0], [*AGENT[1:], "chat"], cwd=workspace, env=env, dimensions=(40, 140)
    )
    child.expect("you>", timeout=30)
    elapsed = time.perf_counter() - start
    child.sendcontrol("d")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    return elapsed


def measure(probes: dict[str, Callable[[], float]], runs: int) -> dict[str, list[float]]:
    """Interleaved: each repetition runs every probe once, so drift in the machine's load hits
    all figures alike and the ratios between them stay fair."""
    for probe in probes.values():
        probe()  # warm the file cache
    figures: dict[str, list[float]] = {name: [] for name in probes}
    for _ in range(runs):
        for name, probe in probes.items():
            figures[name].append(probe())
    return figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--mcp-only", action="store_true")
    parser.add_argument("--warm-only", action="store_true", help="Just issue 25's figures.")
    parser.add_argument("--baseline", help="A checkout to compare with (PYTHONPATH=DIR).")
    args = parser.parse_args()
    if args.warm_only:
        return report(warm_rows(args.runs, args.baseline), args.json)
    runs = args.runs
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("XDG_CONFIG_HOME", None)
    with tempfile.TemporaryDirectory() as workspace, FakeAnthropic() as server:
        run_env = {
            **env,
            "AGENT_NO_SERVER": "1",  # in-process: the warm process's figures are warm_rows'
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "sk-test-" + "k" * 32,
            "HOME": workspace,
        }
        chat_env = {**run_env, "TERM": "xterm-256color"}
        slow_env = {**run_env, "HOME": mcp_home(workspace)}
        with_mcp = "agent run → first request, 3 s MCP server"
        cpu: dict[str, list[float]] = {"agent run → first request": [], with_mcp: []}
        probes: dict[str, Callable[[], float]] = {
            "python -c pass": lambda: timed([sys.executable, "-c", "pass"]),
            "import anthropic": lambda: timed([sys.executable, "-c", "import anthropic"]),
            "agent --version": lambda: timed([*AGENT, "--version"], env),
            "agent --help": lambda: timed([*AGENT, "--help"], env),
            "agent run → first request": lambda: first_request(
                server, run_env, workspace, cpu=cpu["agent run → first request"]
            ),
            "agent chat → prompt drawn": lambda: chat_prompt(chat_env, workspace),
            with_mcp: lambda: first_request(server, slow_env, workspace, cpu=cpu[with_mcp]),
        }
        if args.mcp_only:
            probes = {k: v for k, v in probes.items() if k.startswith("agent run")}
        figures = measure(probes, runs)
    med = {k: statistics.median(v) for k, v in figures.items()}
    mcp_ratio = med[with_mcp] / med["agent run → first request"]
    checks = {
        with_mcp: (mcp_ratio <= 1.10, f"{mcp_ratio:.2f}x without (target ≤ 1.10x)"),
    }
    if not args.mcp_only:
        checks |= startup_checks(med)
    rows = []
    for name, values in figures.items():
        ok, target = checks.get(name, (True, ""))
        rows.append(Figure.of(name, values, "s", target, ok))
    base = figures["agent run → first request"]
    pairs = [m / b for m, b in zip(figures[with_mcp], base, strict=True)]
    rows.append(
        Figure.of(
            "  pairwise ratio, 3 s MCP server / none",
            pairs,
            "x",
            "each repetition's two launches, side by side",
        )
    )
    base_cpu, mcp_cpu = cpu["agent run → first request"], cpu[with_mcp]
    if base_cpu and mcp_cpu:  # the warm-up launches are in these too: alike for both
        cpu_ratio = statistics.median(mcp_cpu) / statistics.median(base_cpu)
        rows.append(Figure.of("  CPU by the first request", base_cpu, "s"))
        rows.append(
            Figure.of(
                "  CPU by the first request, 3 s MCP server",
                mcp_cpu,
                "s",
                f"{cpu_ratio:.2f}x without",
            )
        )
    if not args.mcp_only:
        rows += warm_rows(args.runs, args.baseline)
    return report(rows, args.json)


def startup_checks(med: dict[str, float]) -> dict[str, tuple[bool, str]]:
    ratio = med["agent run → first request"] / med["import anthropic"]
    return {
        "agent --version": (med["agent --version"] <= 0.08, "target ≤ 0.08 s"),
        "agent --help": (med["agent --help"] <= 0.2, "target ≤ 0.2 s"),
        "agent run → first request": (ratio <= 1.15, f"{ratio:.2f}x import (target ≤ 1.15x)"),
        "agent chat → prompt drawn": (
            med["agent chat → prompt drawn"] <= 0.35,
            "target ≤ 0.35 s",
        ),
    }


if __name__ == "__main__":
    raise SystemExit(main())
