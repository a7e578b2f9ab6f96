"""The figures issue 31 asks to quote: the questions a scripted 20-command session of a typical
fix asks in `default` mode with the sandbox and without, and the sandbox's start-up cost per
command (median of the same command through the bash tool, sandboxed beside unsandboxed,
alternating so the machine's load falls on both alike).

    python bench/sandbox.py [--runs N] [--json]

Every command really runs (real git, real bubblewrap) through the real permission gate in a
fresh git repository; the approver answers yes and counts.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Figure, report

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext
from agent_cli.policy.approval import ApprovalRequest, Decision
from agent_cli.policy.gate import PolicyGate
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.runtime.assembly import base_tools
from agent_cli.tools.registry import ToolRegistry
from tests.sandbox_support import shell_wrapper

PY = sys.executable
# a typical fix: look around, run the tests, edit, build, test again, commit
SESSION = [
    "git status",
    "git log --oneline -3",
    "ls -la",
    "cat calc.py test_calc.py",
    "grep -rn 'def add' .",
    f"{PY} -m unittest -q test_calc 2>&1 | tail -3",
    "sed -i 's/return a - b/return a + b/' calc.py",
    "git diff",
    f"{PY} -m unittest -q test_calc",
    f"{PY} -m py_compile calc.py",
    "make build",
    "echo '- add() adds' >> CHANGELOG.md",
    "mkdir -p dist && cp calc.py dist/",
    f"{PY} -c 'import calc; print(calc.add(2, 3))'",
    "git add -A",
    "git diff --cached --stat",
    "git commit -qm 'fix add'",
    "rm -rf dist build",
    "git status --short",
    "git log --oneline -1",
]
FILES = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "test_calc.py": "import unittest\n\nimport calc\n\n\nclass T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n",
    "Makefile": "build:\n\tmkdir -p build && cp calc.py build/\n",
    "CHANGELOG.md": "# Changes\n",
    ".gitignore": "__pycache__/\n",
}
TIMED = ["true", "git status --short", "echo x > out.txt"]


class Counting:
    """Answers yes and counts the questions."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def approve(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request.summary)
        return "allow"


def _repo(root: Path) -> Path:
    ws = root / "ws"
    ws.mkdir()
    for name, text in FILES.items():
        (ws / name).write_text(text)
    git = ["git", "-C", str(ws)]
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run([*git, "config", "user.name", "bench"], check=True)
    subprocess.run([*git, "config", "user.email", "bench@example.com"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    return ws


def _setup(
    ws: Path, mode: str, approver: Counting | None = None, allowed: list[str] | None = None
) -> tuple[ToolRegistry, ToolContext]:
    """`allowed`: hosts the proxy lets through (then every sandboxed command has one)."""
    network = {"allowed_domains": allowed or []}
    settings = Settings.model_validate({"sandbox": {"mode": mode, "network": network}})
    ctx = ToolContext(workspace=ws, paths=Paths(ws), session_id="bench", settings=settings)
    if approver is None:
        return ToolRegistry(base_tools(shell_wrapper=shell_wrapper)), ctx
    permissions = Permissions(settings.permissions, approver)
    gate = PolicyGate(permissions, Hooks(settings.hooks, ctx.session_id, ws))
    return ToolRegistry(base_tools(shell_wrapper=shell_wrapper), gate), ctx


async def _session(mode: str) -> tuple[list[str], list[str]]:
    """The questions asked and the failures, over the scripted session in a fresh repository."""
    with tempfile.TemporaryDirectory() as tmp:
        approver = Counting()
        registry, ctx = _setup(_repo(Path(tmp)), mode, approver)
        failed = []
        for n, command in enumerate(SESSION):
            result = await registry.dispatch("bash", {"command": command}, ctx, f"c{n}")
            if result.is_error:
                failed.append(f"{command}: {result.content[-200:]}")
        return approver.asked, failed


def _cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _cpu_of(argv: list[str], runs: int) -> list[float]:
    """CPU ms of a plain child, reaped here (inside bubblewrap's pid namespace the command's
    own processes are not reaped by anyone who reports to us, so no CPU figure for those)."""
    used = []
    for _ in range(runs):
        before = _cpu_ms()
        subprocess.run(argv, check=True)
        used.append(_cpu_ms() - before)
    return used


async def _startup(runs: int) -> list[Figure]:
    """Per command, wall ms in each setting, in turn (the machine's load falls on all alike)."""
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = _repo(Path(tmp))
        setups = {
            "unsandboxed": _setup(ws, "off"),
            "sandboxed": _setup(ws, "auto"),
            "sandboxed + proxy": _setup(ws, "auto", allowed=["127.0.0.1:9"]),
        }
        for command in TIMED:
            wall: dict[str, list[float]] = {name: [] for name in setups}
            for n in range(runs):
                for name, (registry, ctx) in setups.items():
                    start = time.perf_counter()
                    await registry.dispatch("bash", {"command": command}, ctx, f"t{n}")
                    wall[name].append((time.perf_counter() - start) * 1000)
            base = wall["unsandboxed"]
            for name in setups:
                figures.append(Figure.of(f"`{command}` {name}", wall[name], "ms"))
                if name != "unsandboxed":
                    cost = [a - b for a, b in zip(wall[name], base, strict=True)]
                    figures.append(Figure.of(f"`{command}` {name} cost (pairwise)", cost, "ms"))
    figures.append(Figure.of("CPU of `bash -c true`", _cpu_of(["bash", "-c", "true"], runs), "ms"))
    interpreter = _cpu_of([PY, "-I", "-S", "-c", "import _socket, _thread"], runs)
    figures.append(Figure.of("CPU of the forwarder's interpreter start", interpreter, "ms"))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if shutil.which("bwrap") is None:
        print("bubblewrap is not installed: nothing to compare (apt install bubblewrap)")
        return 1
    with_sandbox, failed_in = asyncio.run(_session("auto"))
    without, failed_out = asyncio.run(_session("off"))
    print(f"questions over {len(SESSION)} commands, default mode: sandbox {len(with_sandbox)}, "
          f"no sandbox {len(without)}")  # fmt: skip
    for where, asked in (("sandboxed", with_sandbox), ("unsandboxed", without)):
        for summary in asked:
            print(f"  asked {where}: {summary}")
    for where, failed in (("sandboxed", failed_in), ("unsandboxed", failed_out)):
        for line in failed:
            print(f"  failed {where}: {line}")
    figures = [
        Figure.of("questions, sandbox (20 commands)", [len(with_sandbox)], "asked"),
        Figure.of("questions, no sandbox (20 commands)", [len(without)], "asked"),
        *asyncio.run(_startup(args.runs)),
    ]
    return report(figures, args.json)


if __name__ == "__main__":
    sys.exit(main())
