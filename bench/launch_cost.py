"""What one `agent run` a test launches costs, side by side (medians over alternating runs):
compiling this tree again on each launch (PYTHONDONTWRITEBYTECODE, as on the CI machine)
against the test suite's bytecode cache (tests/conftest.py), and the same turn driven
in-process through the Runtime (tests/unit/runtime/), which pays neither start-up.

    python bench/launch_cost.py [--runs N] [--json]

Figures: wall seconds and CPU seconds (user + system of the child) per launch.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import AGENT, Figure, agent_env, report

from tests.fake_model import FakeAnthropic


def launch(env: dict[str, str], workspace: Path) -> tuple[float, float]:
    """(wall, cpu) seconds of one `agent run -p hi` against the fake server."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [*AGENT, "run", "-p", "hi"], cwd=workspace, env=env, check=True, capture_output=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def in_process(base_url: str, home: str, workspace: Path) -> tuple[float, float]:
    """(wall, cpu) seconds of the same turn through a Runtime built in this process."""
    from agent_cli.core.options import Options
    from agent_cli.runtime.build import build_runtime

    os.environ.update(agent_env(base_url, home))
    start, cpu0 = time.perf_counter(), time.process_time()
    runtime = build_runtime(Options(workspace=workspace, permission_mode="bypass"), quiet=True)

    async def turn() -> None:
        try:
            async for _ in runtime.turn("hi"):
                pass
        finally:
            await runtime.aclose(wait=False)

    asyncio.run(turn())
    return time.perf_counter() - start, time.process_time() - cpu0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="launch-cost-"))
    home = root / "home"
    home.mkdir()
    cache = root / "pyc"
    rows: dict[str, list[tuple[float, float]]] = {"compiled": [], "cached": [], "in-process": []}
    with FakeAnthropic() as server:
        base = agent_env(server.base_url, str(home))
        ways = {
            "compiled": {**base, "PYTHONDONTWRITEBYTECODE": "1"},
            "cached": {
                **{k: v for k, v in base.items() if k != "PYTHONDONTWRITEBYTECODE"},
                "PYTHONPYCACHEPREFIX": str(cache),
            },
        }
        server.script.text("hi")
        launch(ways["cached"], _workspace(root))  # fills the cache (and warms the disk)
        for _ in range(args.runs):
            for name, env in ways.items():
                server.script.text("hi")
                rows[name].append(launch(env, _workspace(root)))
            server.script.text("hi")
            rows["in-process"].append(in_process(server.base_url, str(home), _workspace(root)))
    figures = []
    for name, pairs in rows.items():
        figures.append(Figure.of(f"agent run -p hi, {name}: wall", [w for w, _ in pairs], "s"))
        figures.append(Figure.of(f"agent run -p hi, {name}: cpu", [c for _, c in pairs], "s"))
    return report(figures, args.json)


def _workspace(root: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=root))


if __name__ == "__main__":
    sys.exit(main())
