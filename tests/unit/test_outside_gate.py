"""Every program agent_cli/ starts goes through the gate (agent_cli/core/outside/spawn.py) or
the sandbox's own wrapper (issue 50): no other module imports `subprocess` or calls
`asyncio.create_subprocess_*`, `os.exec*`, `os.spawn*`, `os.posix_spawn*`, `os.system`,
`os.popen`, `pty.spawn` or anyio's process starts, and `os.fork` is used only where the
reason is written here."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "agent_cli"

# module (relative to agent_cli/) -> why it may start a process itself
ALLOWED: dict[str, str] = {
    "core/outside/spawn.py": "the gate",
    "ext/sandbox/forwarder.py": "runs inside the sandbox: it forks and execs the confined command",
    "ext/mcp/stdio.py": "anyio's process, whose streams the MCP bridge reads: started behind"
    " core/outside/watch.py's gate, by an absolute path, with the gate's environment",
}
FORK_ALLOWED: dict[str, str] = {
    "cli/warm/server.py": "the warm child: every request is checked against its peer first",
    "cli/warm/child.py": "the warm child itself, forked once its request passed that check",
    "core/outside/guard.py": "the watcher leaves its parent, to be nobody's child; it execs"
    " nothing",
    "ext/sandbox/forwarder.py": "inside the sandbox",
}
STARTERS = {
    ("asyncio", "create_subprocess_exec"),
    ("asyncio", "create_subprocess_shell"),
    ("os", "system"),
    ("os", "popen"),
    ("pty", "spawn"),
    ("anyio", "open_process"),
    ("anyio", "run_process"),
}
OS_PREFIXES = ("exec", "spawn", "posix_spawn")


def _dotted(node: ast.expr) -> tuple[str, str] | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id, node.attr
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
        inner = node.value
        if isinstance(inner.value, ast.Name) and inner.attr == "subprocess":
            return "asyncio.subprocess", node.attr
    return None


def violations(source: str) -> Iterator[str]:
    """What in `source` starts a process without the gate: `kind:line` strings."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(a.name == "subprocess" for a in node.names):
            yield f"import subprocess:{node.lineno}"
        elif isinstance(node, ast.ImportFrom) and node.module == "subprocess":
            yield f"from subprocess:{node.lineno}"
        elif isinstance(node, ast.Call) and (name := _dotted(node.func)) is not None:
            module, attr = name
            starts = (module, attr) in STARTERS or (module == "os" and attr.startswith(OS_PREFIXES))
            if starts:
                yield f"{module}.{attr}:{node.lineno}"
            elif (module, attr) == ("os", "fork"):
                yield f"fork:{node.lineno}"


def _modules() -> Iterator[tuple[str, str]]:
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        yield path.relative_to(PACKAGE_DIR).as_posix(), path.read_text(encoding="utf-8")


def test_every_process_is_started_through_the_gate() -> None:
    found = []
    for name, source in _modules():
        for problem in violations(source):
            kind = problem.split(":")[0]
            if kind == "fork" and name in FORK_ALLOWED:
                continue
            if name not in ALLOWED:
                found.append(f"{name}: {problem}")
    assert found == []


def test_the_allowances_name_modules_that_exist() -> None:
    for name in (*ALLOWED, *FORK_ALLOWED):
        assert (PACKAGE_DIR / name).is_file(), name


def test_the_scan_finds_each_kind() -> None:
    source = (
        "import subprocess\n"
        "from subprocess import run\n"
        "import asyncio, os, pty\n"
        "asyncio.create_subprocess_exec('x')\n"
        "asyncio.create_subprocess_shell('x')\n"
        "os.execvpe('x', [], {})\n"
        "os.posix_spawnp('x', [], {})\n"
        "os.system('x')\n"
        "pty.spawn('x')\n"
        "os.fork()\n"
        "asyncio.subprocess.PIPE\n"  # a constant, not a start
    )
    kinds = [v.split(":")[0] for v in violations(source)]
    assert kinds == [
        "import subprocess",
        "from subprocess",
        "asyncio.create_subprocess_exec",
        "asyncio.create_subprocess_shell",
        "os.execvpe",
        "os.posix_spawnp",
        "os.system",
        "pty.spawn",
        "fork",
    ]
