"""The figures issue 58 asks bench/architecture.py to print, with their targets: the spine's
imports of extension code, what `agent run -p hi` imports and runs before its first request,
the Runtime's public members, the async generators a text delta crosses to the chat's consumer,
and the modules over the line cap and over the aim."""

from __future__ import annotations

import ast
import inspect
import json
import os
import subprocess
import sys
import textwrap
from collections import defaultdict
from typing import Any

from common import REPO, Figure

from tests.unit.test_architecture import (
    MAX_LINES,
    Import,
    Module,
    extension_of,
    spine_to_extensions,
    too_long,
)

AIM_LINES = 300
MAX_MODULES = 170
MAX_MEMBERS = 30
MAX_LAYERS = 8


def count(name: str, value: float, unit: str, target: str, ok: bool) -> Figure:
    return Figure(name, value, value, value, unit, target, ok)


def spine_imports(imports: list[Import]) -> tuple[Figure, list[str]]:
    """Import statements of spine modules naming extension code, and per module where."""
    statements: dict[str, set[int]] = defaultdict(set)
    targets: dict[str, set[str]] = defaultdict(set)
    for imp in spine_to_extensions(imports):
        statements[imp.file].add(imp.line)
        targets[imp.file].add(extension_of(imp.target) or "ext")
    total = sum(len(lines) for lines in statements.values())
    listed = [
        f"{file}: {len(lines)} ({', '.join(sorted(targets[file]))})"
        for file, lines in sorted(statements.items())
    ]
    figure = count("spine imports of extension code", total, "stmts", "0", total == 0)
    return figure, listed


def line_caps(modules: dict[str, Module]) -> list[Figure]:
    over_cap, over_aim = len(too_long(modules)), len(too_long(modules, AIM_LINES))
    return [
        count(f"modules over {MAX_LINES} lines (cap)", over_cap, "mods", "0", over_cap == 0),
        count(f"modules over {AIM_LINES} lines (aim)", over_aim, "mods", "aim 0, not held", True),
    ]


def runtime_members() -> tuple[Figure, list[str]]:
    """Public names of the Runtime: its classes' (the MRO but object) and the attributes its
    methods set on `self`."""
    from agent_cli.runtime.runtime import Runtime

    classes = [c for c in Runtime.__mro__ if c is not object]
    names = {n for c in classes for n in vars(c) if not n.startswith("_")}
    for cls in classes:
        for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(cls)))):
            names |= {n for n in _self_attributes(node) if not n.startswith("_")}
    n = len(names)
    figure = count("Runtime public members", n, "names", f"<= {MAX_MEMBERS}", n <= MAX_MEMBERS)
    return figure, [", ".join(sorted(names))]


def _self_attributes(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    else:
        return []
    flat = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return [
        e.attr
        for e in flat
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self"
    ]


def probe(name: str) -> dict[str, Any]:
    """bench/arch_probes.py `name` in a process of its own."""
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "arch_probes.py"), name],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"arch_probes.py {name} failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    if result.get("exit") != 0:
        raise RuntimeError(f"arch_probes.py {name}: the run exited {result.get('exit')}")
    return result


def first_request() -> tuple[list[Figure], list[str]]:
    found = probe("first-request")
    modules: list[str] = found["modules"]
    n = len(modules)
    ext = [m for m in modules if extension_of(m) is not None]
    figures = [
        count("modules before the first request", n, "mods", f"<= {MAX_MODULES}", n <= MAX_MODULES),
        count("extension modules among them", len(ext), "mods", "", True),
        count("functions run before the first request", found["functions"], "funcs", "", True),
        count("files of those functions", found["function_files"], "files", "", True),
    ]
    per: dict[str, int] = defaultdict(int)
    for name in ext:
        per[extension_of(name) or "(agent_cli.ext)"] += 1
    return figures, [", ".join(f"{name} {n}" for name, n in sorted(per.items())) or "none"]


def delta_layers() -> tuple[Figure, list[str]]:
    found = probe("delta-layers")
    n = found["layers"]
    lines = [f"consumer: {found['consumer']}", *found["generators"]]
    if found["yielders"] != found["generators"]:
        lines.append(f"(the same event was also yielded by: {', '.join(found['yielders'])})")
    figure = count("async generators a text delta crosses", n, "layers", f"<= {MAX_LAYERS}", n <= 8)
    return figure, lines
