"""The figures issue 13 asks to quote, from the same reading of agent_cli/ as the architecture test
(tests/unit/test_architecture.py): modules, their median and longest line counts, the longest
functions, and the imports that break the layering; and issue 58's figures, with their targets
(bench/arch_figures.py): the spine's imports of extension code, what `agent run -p hi` imports
and runs before its first request, the Runtime's public members, the async generators a text
delta crosses to the chat, the modules over the cap and the aim.

    python bench/architecture.py [--json]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys

from common import REPO, Figure, report

sys.path.insert(0, str(REPO))

from tests.unit.test_architecture import (
    Import,
    Module,
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
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true", help="only the figures, one JSON a line")
    as_json = parser.parse_args().json
    modules = load_modules()
    imports = all_imports(modules)
    if not as_json:
        shape(modules, imports)
    figures = extension_figures(modules, imports, not as_json)
    if not as_json:
        print("issue 58's figures:")
    return report(figures, as_json)


def extension_figures(
    modules: dict[str, Module], imports: list[Import], verbose: bool
) -> list[Figure]:
    """Issue 58's figures; with `verbose`, each printed with what it counted."""
    import arch_figures as af

    before, extension_modules = af.first_request()
    found = [
        af.spine_imports(imports),
        *[(f, []) for f in before[:-1]],
        (before[-1], extension_modules),
        af.runtime_members(),
        af.delta_layers(),
        *[(f, []) for f in af.line_caps(modules)],
    ]
    for figure, lines in found:
        _say(verbose, figure, lines)
    return [figure for figure, _ in found]


def _say(verbose: bool, figure: Figure, lines: list[str]) -> None:
    """What a figure counted, under its name (the figures themselves come last, as a table)."""
    if verbose and lines:
        print(f"{figure.name}:")
        for line in lines:
            print(f"  {line}")


def shape(modules: dict[str, Module], imports: list[Import]) -> None:
    """What this script printed before issue 58: the floors' figures."""
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


if __name__ == "__main__":
    sys.exit(main())
