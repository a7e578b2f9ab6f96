"""What language servers cost an edit: edit_file on a file no server covers, with and without
a server running beside it (target: no delay, ratio <= 1.10 + 1 ms), and on a Python file that
python-lsp-server checks (the price of the diagnostics, for the record).

    python bench/lsp.py [--runs 30] [--json]

In-process, the tools called directly, pairs interleaved so both sides see the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import Figure, report

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext
from agent_cli.ext.lsp.manager import LspManager
from agent_cli.ext.lsp.settings import LspSettings
from agent_cli.tools.edit_file import EditFile, EditFileInput
from agent_cli.tools.read_file import ReadFile, ReadFileInput


def context(workspace: Path, lsp: LspManager | None) -> ToolContext:
    paths = Paths(workspace)
    return ToolContext(workspace, paths, "bench", Settings(), diagnoser=lsp)


async def timed_edit(ctx: ToolContext, name: str, n: int) -> float:
    old, new = f"value = {n}", f"value = {n + 1}"
    start = time.perf_counter()
    result = await EditFile().run(EditFileInput(path=name, old_string=old, new_string=new), ctx)
    elapsed = time.perf_counter() - start
    assert not result.is_error, result.content
    return elapsed


async def measure(runs: int) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        for name in ("plain.md", "bare.md", "mod.py"):
            (workspace / name).write_text("value = 0\n")
        pylsp = {"pylsp": {"command": [sys.executable, "-m", "pylsp"], "extensions": [".py"]}}
        lsp = LspManager(LspSettings(servers=pylsp, builtin=False, wait_ms=1500), workspace)
        with_server, without = context(workspace, lsp), context(workspace, None)
        for ctx, name in ((with_server, "plain.md"), (without, "bare.md"), (with_server, "mod.py")):
            await ReadFile().run(ReadFileInput(path=name), ctx)
        await timed_edit(with_server, "mod.py", 0)  # the server starts: not part of the figures
        beside, alone, checked = [], [], []
        await asyncio.sleep(1)  # the server idle beside the edits, as between a turn's edits
        for n in range(runs):  # which goes first alternates: neither pays for being first
            pair = [(beside, with_server, "plain.md"), (alone, without, "bare.md")]
            for figures, ctx, name in pair if n % 2 else reversed(pair):
                figures.append(await timed_edit(ctx, name, n) * 1000)
        for n in range(1, runs + 1):
            checked.append(await timed_edit(with_server, "mod.py", n) * 1000)
        await lsp.aclose()
    ratio = statistics.median(beside) / statistics.median(alone)
    ok = statistics.median(beside) <= statistics.median(alone) * 1.10 + 1.0
    return [
        Figure.of("edit of an uncovered file, no server", alone, "ms"),
        Figure.of(
            "edit of an uncovered file, pylsp running",
            beside,
            "ms",
            f"<= 1.10x + 1 ms (ratio {ratio:.2f})",
            ok,
        ),
        Figure.of("edit of a .py file pylsp checks", checked, "ms"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    return report(asyncio.run(measure(args.runs)), args.json)


if __name__ == "__main__":
    sys.exit(main())
