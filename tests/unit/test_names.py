"""A name says one thing: no class name is defined twice in the package, and no module-level
class or function shadows a builtin (issue 30: names repeated across packages)."""

from __future__ import annotations

import ast
import builtins
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "agent_cli"


def _top_level(kind: type[ast.AST]) -> dict[str, list[str]]:
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, kind):
                where[node.name].append(str(path.relative_to(PACKAGE)))  # type: ignore[attr-defined]
    return where


def test_no_class_name_is_defined_twice():
    repeated = {name: paths for name, paths in _top_level(ast.ClassDef).items() if len(paths) > 1}
    assert repeated == {}


def test_no_class_or_function_shadows_a_builtin():
    defined = {**_top_level(ast.ClassDef), **_top_level(ast.FunctionDef)}
    shadowing = {name: paths for name, paths in defined.items() if hasattr(builtins, name)}
    assert shadowing == {}
