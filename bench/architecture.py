"""The figures issue 13 asks to quote, from the same reading of agent_cli/ as the architecture test
(tests/unit/test_architecture.py): modules, their median and longest line counts, the longest
functions, and the imports that break the layering.

    python bench/architecture.py
"""

from __future__ import annotations

import ast
import statistics
import sys

from common import REPO

sys.path.insert(0, str(REPO))

from tests.unit.test_architecture import (
    all_imports,
    back_edges,
    core_to_front_end,
    describe,
    load_modules,
    same_floor_cycles,
    too_long,
    unplaced,
)


def functions(tree: ast.Module, file: str) -> list[tuple[int, str]]:
    """(lines, file:line name) of every function and method, nested ones too."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            found.append((lines, f"{file}:{node.lineno} {node.name}"))
    return found


def main() -> int:
    modules = load_modules()
    imports = all_imports(modules)
    lines = [m.lines for m in modules.values()]
    longest = max(modules.values(), key=lambda m: m.lines)
    funcs = sorted((f for m in modules.values() for f in functions(m.tree, m.file)), reverse=True)
    back = back_edges(imports)
    print(f"modules: {len(modules)}")
    median = statistics.median(lines)
    print(f"lines per module: median {median:g}, max {longest.lines} ({longest.file})")
    print(f"functions: {len(funcs)}, median {statistics.median(n for n, _ in funcs):g} lines")
    print("longest functions:")
    for n, name in funcs[:10]:
        print(f"  {n:4d}  {name}")
    print(f"import back-edges (up the floors): {len(back)}")
    for imp in back:
        print(f"  {describe(imp)}")
    for label, found in (
        ("core imports of the front ends", [describe(i) for i in core_to_front_end(imports)]),
        ("cycles within a floor", [" <-> ".join(c) for c in same_floor_cycles(imports)]),
        ("modules without a floor", unplaced(modules)),
        ("modules over the line cap", [f"{m.file}: {m.lines}" for m in too_long(modules)]),
        (
            "modules over 300 lines (the issue's aim)",
            [f"{m.file}: {m.lines}" for m in too_long(modules, 300)],
        ),
    ):
        print(f"{label}: {len(found)}")
        for line in found:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
