"""The shape of agent_cli/: the core never imports a front end, imports point down the floors
(no cycle between packages of one floor), and no module passes 400 lines.

Every import of an agent_cli module counts, wherever it sits: at the top, inside a function
(a lazy import is still an arrow) or under `if TYPE_CHECKING:`.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = "agent_cli"
PACKAGE_DIR = Path(__file__).resolve().parents[2] / ROOT
MAX_LINES = 400
FRONT_ENDS = ("agent_cli.cli", "agent_cli.ui", "agent_cli.__main__")  # `python -m agent_cli`

# The floors, lowest first. A module's floor is the one of the longest prefix naming it; a module
# may import its own floor or below. A new package or top-level module goes here, consciously.
FLOOR_NAMES = {
    1: "ground",
    2: "capabilities",
    3: "composites",
    4: "loop",
    5: "runtime",
    6: "front ends",
}
FLOORS: dict[str, int] = {
    # 1 ground: plain data, contracts and helpers that import nothing above them
    "agent_cli": 1,  # the package itself (its __init__: the version); matches only itself
    "agent_cli.errors": 1,
    "agent_cli.options": 1,
    "agent_cli.paths": 1,
    "agent_cli.settings": 1,
    "agent_cli.settings_features": 1,  # project files, web and checkpoint settings sections
    "agent_cli.settings_mcp": 1,  # the MCP part of the settings model
    "agent_cli.messages": 1,
    "agent_cli.history": 1,
    "agent_cli.events": 1,
    "agent_cli.payloads": 1,
    "agent_cli.prompts": 1,
    "agent_cli.redaction": 1,
    "agent_cli.approval": 1,
    "agent_cli.tool_contract": 1,
    "agent_cli.trust": 1,
    "agent_cli.approved_rules": 1,
    "agent_cli.private_file": 1,
    "agent_cli.search_index": 1,
    "agent_cli.system_prompt": 1,
    "agent_cli.lenient_json": 1,
    "agent_cli.lenient_values": 1,
    "agent_cli.unicode_safe": 1,
    "agent_cli.signals": 1,
    "agent_cli.inbox": 1,  # steering messages and job notices waiting for the next request
    "agent_cli.durable": 1,  # files written are synced before the fast exit
    # 2 capabilities
    "agent_cli.model": 2,
    "agent_cli.tools": 2,
    "agent_cli.context": 2,
    "agent_cli.todo": 2,
    "agent_cli.permissions": 2,
    "agent_cli.hooks": 2,
    "agent_cli.shell_rules": 2,
    "agent_cli.shell_deny": 2,
    "agent_cli.gate": 2,
    "agent_cli.turn_hooks": 2,
    "agent_cli.session": 2,
    "agent_cli.logs": 2,
    "agent_cli.instructions": 2,
    "agent_cli.trust_items": 2,
    # what a workspace's MCP files ask to run: read by trust_items, below the client itself
    "agent_cli.mcp.config": 2,
    "agent_cli.mcp.expand": 2,
    "agent_cli.loop_ports": 2,  # the loop's extension points, which stages and guides implement
    "agent_cli.web": 2,
    "agent_cli.jobs": 2,  # background shells: process groups, output files, the watcher
    # 3 composites: built from capabilities
    "agent_cli.subagent": 3,
    "agent_cli.memory": 3,
    "agent_cli.checkpoints": 3,
    "agent_cli.mcp": 3,
    "agent_cli.extensions": 3,
    "agent_cli.project_files": 3,
    # 4 the loop
    "agent_cli.loop": 4,
    # 5 the runtime and the composition root
    "agent_cli.runtime": 5,
    "agent_cli.runtime_work": 5,  # the Runtime's jobs, steering and notification part
    "agent_cli.build": 5,
    # 6 the front ends
    "agent_cli.cli": 6,
    "agent_cli.ui": 6,
    "agent_cli.__main__": 6,
}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, dotted
    target: str  # the imported agent_cli module, dotted
    file: str  # the importing file, from the directory holding agent_cli/
    line: int

    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    file: str  # from the directory holding agent_cli/
    tree: ast.Module
    lines: int


def module_name(path: Path, package_dir: Path) -> str:
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def load_modules(package_dir: Path = PACKAGE_DIR) -> dict[str, Module]:
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = module_name(path, package_dir)
        tree = ast.parse(text, filename=str(path))
        file = path.relative_to(package_dir.parent).as_posix()
        modules[name] = Module(name, path, file, tree, len(text.splitlines()))
    return modules


def _resolve(base: str, name: str, known: Iterable[str]) -> str:
    """`from base import name`: the submodule base.name when it is one, else base."""
    candidate = f"{base}.{name}"
    return candidate if candidate in known else base


def imports_of(module: Module, known: set[str], root: str = ROOT) -> list[Import]:
    """One Import per imported agent_cli module and line, in the file's order."""
    found: dict[tuple[str, int], Import] = {}
    is_package = module.path.name == "__init__.py"
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing module's package
                parts = module.name.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = [_resolve(base, alias.name, known) for alias in node.names]
        else:
            continue
        for target in targets:
            if target == root or target.startswith(root + "."):
                found.setdefault(
                    (target, node.lineno), Import(module.name, target, module.file, node.lineno)
                )
    return sorted(found.values(), key=lambda i: (i.line, i.target))


def floor_of(name: str, floors: dict[str, int] = FLOORS, root: str = ROOT) -> int | None:
    """The floor of the longest prefix naming `name` (the root entry names only the root)."""
    best: tuple[int, int] | None = None
    for prefix, floor in floors.items():
        matches = name == prefix or (prefix != root and name.startswith(prefix + "."))
        if matches and (best is None or len(prefix) > best[0]):
            best = (len(prefix), floor)
    return best[1] if best else None


def unit_of(name: str) -> str:
    """The package or top-level module `name` belongs to: the nodes of the cycle check."""
    return ".".join(name.split(".")[:2])


def all_imports(modules: dict[str, Module]) -> list[Import]:
    known = set(modules)
    return [imp for module in modules.values() for imp in imports_of(module, known)]


def is_front_end(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FRONT_ENDS)


def core_to_front_end(imports: list[Import]) -> list[Import]:
    return [i for i in imports if not is_front_end(i.source) and is_front_end(i.target)]


def back_edges(imports: list[Import], floors: dict[str, int] = FLOORS) -> list[Import]:
    """Imports that run up the floors (modules missing from the table are reported apart)."""
    edges = []
    for imp in imports:
        here, there = floor_of(imp.source, floors), floor_of(imp.target, floors)
        if here is not None and there is not None and there > here:
            edges.append(imp)
    return edges


def unplaced(modules: Iterable[str], floors: dict[str, int] = FLOORS) -> list[str]:
    return sorted(name for name in modules if floor_of(name, floors) is None)


def same_floor_cycles(imports: list[Import], floors: dict[str, int] = FLOORS) -> list[list[str]]:
    """Strongly connected components of more than one package within a floor (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        a, b = unit_of(imp.source), unit_of(imp.target)
        fa, fb = floor_of(imp.source, floors), floor_of(imp.target, floors)
        if a != b and fa is not None and fa == fb:
            graph[a].add(b)
            graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def too_long(modules: dict[str, Module], limit: int = MAX_LINES) -> list[Module]:
    return [m for m in modules.values() if m.lines > limit]


def describe(imp: Import) -> str:
    here, there = floor_of(imp.source), floor_of(imp.target)
    floors = ""
    if here is not None and there is not None:
        floors = f" (floor {here} {FLOOR_NAMES[here]} -> floor {there} {FLOOR_NAMES[there]})"
    return f"{imp.where()}: {imp.source} imports {imp.target}{floors}"


# ---- the checks, on agent_cli/ as it stands


@functools.cache
def current_modules() -> dict[str, Module]:
    return load_modules()


@functools.cache
def current_imports() -> list[Import]:
    return all_imports(current_modules())


def fail_on(found: list[str], heading: str) -> None:
    """Fails naming every finding, one a line (and not the whole list's repr)."""
    if found:
        pytest.fail(heading + ":\n  " + "\n  ".join(found), pytrace=False)


def test_every_module_has_a_floor():
    found = [f"add {name} to the floor table" for name in unplaced(current_modules())]
    fail_on(found, f"modules without a floor ({Path(__file__).name}, FLOORS)")


def test_the_core_never_imports_a_front_end():
    found = [describe(i) for i in core_to_front_end(current_imports())]
    fail_on(found, "core modules import the front ends")


def test_imports_point_down_the_floors():
    found = [describe(i) for i in back_edges(current_imports())]
    fail_on(found, "imports run back up the floors")


def test_no_cycle_between_packages_of_one_floor():
    found = [" <-> ".join(cycle) for cycle in same_floor_cycles(current_imports())]
    fail_on(found, "packages of one floor import each other in a cycle")


def test_no_module_passes_the_line_cap():
    found = [f"{m.file}: {m.lines} lines" for m in too_long(current_modules())]
    fail_on(found, f"modules over {MAX_LINES} lines")


# ---- the checks catch what they should, on a package made for the purpose


def make_package(root: Path, files: dict[str, str]) -> dict[str, Module]:
    for rel, text in files.items():
        path = root / ROOT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return load_modules(root / ROOT)


def test_the_checks_find_each_kind_of_violation(tmp_path: Path):
    modules = make_package(
        tmp_path,
        {
            "__init__.py": "",
            "settings.py": "from agent_cli.ui import app\n",
            "tools/__init__.py": "",
            "tools/bash.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from agent_cli.loop.agent import Agent\n",
            "tools/grep.py": "from agent_cli.context import pipeline\n",
            "context/__init__.py": "",
            "context/pipeline.py": "def f():\n    from ..tools import grep\n",
            "loop/__init__.py": "",
            "loop/agent.py": "import agent_cli.tools.bash\n",
            "ui/__init__.py": "",
            "ui/app.py": "from agent_cli import settings\n",
            "shiny.py": "x = 1\n" * (MAX_LINES + 1),
        },
    )
    imports = all_imports(modules)
    assert [(i.source, i.target) for i in core_to_front_end(imports)] == [
        ("agent_cli.settings", "agent_cli.ui.app")
    ]
    assert sorted((i.source, i.target) for i in back_edges(imports)) == [
        ("agent_cli.settings", "agent_cli.ui.app"),
        ("agent_cli.tools.bash", "agent_cli.loop.agent"),
    ]
    assert same_floor_cycles(imports) == [["agent_cli.context", "agent_cli.tools"]]
    assert unplaced(modules) == ["agent_cli.shiny"]
    assert [m.name for m in too_long(modules)] == ["agent_cli.shiny"]
    (relative,) = [i for i in imports if i.source == "agent_cli.context.pipeline"]
    assert relative.target == "agent_cli.tools.grep"
    assert relative.where() == "agent_cli/context/pipeline.py:2"


def test_the_longest_prefix_names_the_floor():
    assert floor_of("agent_cli.loop.agent") == 4
    assert floor_of("agent_cli.loop_ports") == 2  # a prefix ends at a dot: not agent_cli.loop
    assert floor_of("agent_cli.tools.task") == 2
    assert floor_of("agent_cli") == 1
    assert floor_of("agent_cli.nowhere") is None
    assert floor_of("agent_cli.ui.app") == 6
