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
MAX_LINES = 400  # the hard cap; 300 is the aim (bench/architecture.py lists who passes it)
MAX_MODULES_PER_FOLDER = 16  # past that a package gets sub-folders
ROOT_FILES = {"__init__.py", "__main__.py"}  # the rest of agent_cli/ lives in a floor's folder
FRONT_ENDS = (
    "agent_cli.cli",
    "agent_cli.ui",
    "agent_cli.serve",
    "agent_cli.__main__",
)  # `python -m agent_cli`

# The floors, lowest first. A module's floor is the one of the longest prefix naming it; a module
# may import its own floor or below. A new package or top-level module goes here, consciously.
FLOOR_NAMES = {
    1: "ground",
    2: "capabilities",
    3: "composites",
    4: "loop",
    5: "runtime",
    6: "front ends",
    7: "extensions",
}
FLOORS: dict[str, int] = {
    "agent_cli": 1,  # the package itself (its __init__: the version); matches only itself
    # 1 ground: plain data, contracts and helpers that import nothing above them
    # errors, events, payloads, messages, the tool contract; text/, files/, prompts/, settings/
    "agent_cli.core": 1,
    # 2 capabilities that know nothing of each other
    "agent_cli.model": 2,
    "agent_cli.tools": 2,  # one module per tool; shell/ (bash, its rules, deny list), web/
    "agent_cli.context": 2,  # the pipeline, and the loop's ports its stages implement
    "agent_cli.todo": 2,
    "agent_cli.session": 2,
    # 3 composites: built from capabilities
    "agent_cli.policy": 3,  # permissions, the gate, approvals, hooks, trust
    "agent_cli.subagent": 3,
    "agent_cli.memory": 3,
    # 4 the loop
    "agent_cli.loop": 4,
    # 5 the runtime and the composition root
    "agent_cli.runtime": 5,
    # 6 the front ends
    "agent_cli.cli": 6,
    "agent_cli.ui": 6,
    "agent_cli.serve": 6,  # protocol servers (ACP, MCP) over stdio: they only drive the Runtime
    "agent_cli.__main__": 6,
    # 7 the extensions: each feature in its folder, plugged in through the contract; the
    # spine never imports them (WELDS below), and one imports another only if it requires it
    "agent_cli.ext": 7,
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
    """An extension sits above the front ends (its slash and CLI commands are theirs)."""
    return [
        i
        for i in imports
        if not is_front_end(i.source) and not is_extension(i.source) and is_front_end(i.target)
    ]


def is_extension(name: str) -> bool:
    return name.startswith(f"{ROOT}.ext.")


def back_edges(imports: list[Import], floors: dict[str, int] = FLOORS) -> list[Import]:
    """Imports that run up the floors (modules missing from the table are reported apart)."""
    edges = []
    for imp in imports:
        here, there = floor_of(imp.source, floors), floor_of(imp.target, floors)
        if is_extension(imp.target) and not is_extension(imp.source):
            continue  # the spine's imports of extensions: WELDS, which only shrinks, holds them
        if here is not None and there is not None and there > here:
            edges.append(imp)
    return edges


def unplaced(modules: Iterable[str], floors: dict[str, int] = FLOORS) -> list[str]:
    return sorted(name for name in modules if floor_of(name, floors) is None)


def same_floor_cycles(imports: list[Import], floors: dict[str, int] = FLOORS) -> list[list[str]]:
    """Circles of more than one package within a floor."""
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        a, b = unit_of(imp.source), unit_of(imp.target)
        fa, fb = floor_of(imp.source, floors), floor_of(imp.target, floors)
        if a != b and fa is not None and fa == fb:
            graph[a].add(b)
            graph.setdefault(b, set())
    return _strongly_connected(graph)


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
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


def module_cycles(imports: list[Import]) -> list[list[str]]:
    """Circles of modules inside one package: modules that import each other, however lazily."""
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        if imp.source != imp.target and unit_of(imp.source) == unit_of(imp.target):
            graph[imp.source].add(imp.target)
            graph.setdefault(imp.target, set())
    return _strongly_connected(graph)


def stale_floors(modules: Iterable[str], floors: dict[str, int] = FLOORS) -> list[str]:
    """Floor table entries that name nothing in the tree."""
    names = set(modules)
    return sorted(
        prefix
        for prefix in floors
        if prefix not in names and not any(n.startswith(prefix + ".") for n in names)
    )


def floors_not_folders(floors: dict[str, int] = FLOORS, root: str = ROOT) -> list[str]:
    """A floor is given to a whole top-level folder (or an extension's folder under ext/),
    never to a module inside one."""
    depth = lambda p: p.count(".") - p.startswith(f"{root}.ext.")  # noqa: E731
    return sorted(p for p in floors if depth(p) > 1 or (p != root and not p.startswith(root)))


def loose_root_files(package_dir: Path = PACKAGE_DIR) -> list[str]:
    return sorted(p.name for p in package_dir.glob("*.py") if p.name not in ROOT_FILES)


def crowded_folders(package_dir: Path = PACKAGE_DIR) -> list[str]:
    found = []
    for folder in sorted({p.parent for p in package_dir.rglob("*.py")}):
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        if count > MAX_MODULES_PER_FOLDER:
            found.append(f"{folder.relative_to(package_dir.parent).as_posix()}: {count} modules")
    return found


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


def test_no_circle_of_modules_inside_a_package():
    found = [" <-> ".join(cycle) for cycle in module_cycles(current_imports())]
    fail_on(found, "modules of one package import each other in a circle")


def test_every_floor_entry_names_a_folder_that_exists():
    found = [f"{p}: nothing by that name" for p in stale_floors(current_modules())]
    found += [f"{p}: a floor belongs to a whole top-level folder" for p in floors_not_folders()]
    fail_on(found, "stale or misplaced entries in the floor table")


def test_the_package_root_holds_only_the_entry_points():
    fail_on(loose_root_files(), f"modules in {ROOT}/ itself (give each a floor's folder)")


def test_no_folder_is_crowded():
    fail_on(crowded_folders(), f"folders of more than {MAX_MODULES_PER_FOLDER} modules")


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
            "core/__init__.py": "",
            "core/settings.py": "from agent_cli.ui import app\n",
            "tools/__init__.py": "",
            "tools/bash.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from agent_cli.loop.agent import Agent\n",
            "tools/grep.py": "from agent_cli.context import pipeline\n",
            "context/__init__.py": "",
            "context/pipeline.py": "def f():\n    from ..tools import grep\n",
            "loop/__init__.py": "",
            "loop/agent.py": "import agent_cli.tools.bash\nfrom agent_cli.loop import rounds\n",
            "loop/rounds.py": "def f():\n    from agent_cli.loop.agent import Agent\n",
            "ui/__init__.py": "",
            "ui/app.py": "from agent_cli.core import settings\n",
            "shiny.py": "x = 1\n" * (MAX_LINES + 1),
            **{f"crowd/m{i}.py": "" for i in range(MAX_MODULES_PER_FOLDER + 1)},
        },
    )
    imports = all_imports(modules)
    assert [(i.source, i.target) for i in core_to_front_end(imports)] == [
        ("agent_cli.core.settings", "agent_cli.ui.app")
    ]
    assert sorted((i.source, i.target) for i in back_edges(imports)) == [
        ("agent_cli.core.settings", "agent_cli.ui.app"),
        ("agent_cli.tools.bash", "agent_cli.loop.agent"),
    ]
    assert same_floor_cycles(imports) == [["agent_cli.context", "agent_cli.tools"]]
    assert module_cycles(imports) == [["agent_cli.loop.agent", "agent_cli.loop.rounds"]]
    crowd = [f"agent_cli.crowd.m{i}" for i in range(MAX_MODULES_PER_FOLDER + 1)]
    assert unplaced(modules) == sorted([*crowd, "agent_cli.shiny"])
    assert [m.name for m in too_long(modules)] == ["agent_cli.shiny"]
    assert loose_root_files(tmp_path / ROOT) == ["shiny.py"]
    assert crowded_folders(tmp_path / ROOT) == [
        f"agent_cli/crowd: {MAX_MODULES_PER_FOLDER + 1} modules"
    ]
    assert stale_floors(modules, {"agent_cli.loop": 4, "agent_cli.gone": 2}) == ["agent_cli.gone"]
    assert floors_not_folders({"agent_cli.loop.agent": 4, "agent_cli.ui": 6}) == [
        "agent_cli.loop.agent"
    ]
    (relative,) = [i for i in imports if i.source == "agent_cli.context.pipeline"]
    assert relative.target == "agent_cli.tools.grep"
    assert relative.where() == "agent_cli/context/pipeline.py:2"


def test_the_longest_prefix_names_the_floor():
    assert floor_of("agent_cli.loop.agent") == 4
    assert floor_of("agent_cli.context.ports") == 2
    assert floor_of("agent_cli.loopy") is None  # a prefix ends at a dot: not agent_cli.loop
    assert floor_of("agent_cli.tools.task") == 2
    assert floor_of("agent_cli") == 1
    assert floor_of("agent_cli.nowhere") is None
    assert floor_of("agent_cli.ui.app") == 6


# ---- the spine and the extensions (issue 58): the spine imports none; an extension imports
# another only when its Extension `requires` it

EXT = f"{ROOT}.ext"
# The spine's imports of extension code still to de-weld: spine module -> the extension folders
# it imports (the names under agent_cli.ext). THE TARGET IS AN EMPTY TABLE. A de-weld deletes its
# entries (an entry naming an import that is gone fails, so the table only shrinks); a new import
# of an extension from the spine fails whatever this table says, unless it is added here, which
# is the one thing not to do.
WELDS: dict[str, frozenset[str]] = {}  # reached: the spine imports no extension
# Extensions importing another they do not (yet) declare in `requires`: folder -> folders.
# The same rule: the target is empty, entries only go.
CROSS_WELDS: dict[str, frozenset[str]] = {
    "batch": frozenset({"sandbox", "worktrees"}),
    "goals": frozenset({"sandbox"}),
}


def extension_of(name: str) -> str | None:
    """The extension folder `name` lies in ("" for the package agent_cli.ext itself); None for
    the spine's modules."""
    if name != EXT and not name.startswith(EXT + "."):
        return None
    return name.split(".")[2] if name.count(".") >= 2 else ""


def spine_to_extensions(imports: list[Import]) -> list[Import]:
    return [
        i for i in imports if extension_of(i.source) is None and extension_of(i.target) is not None
    ]


def unlisted(pairs: set[tuple[str, str]], table: dict[str, frozenset[str]]) -> list[str]:
    """(importer, imported) pairs the table does not list."""
    return sorted(f"{a} -> {b}" for a, b in pairs if b not in table.get(a, frozenset()))


def stale(pairs: set[tuple[str, str]], table: dict[str, frozenset[str]]) -> list[str]:
    """Table entries no import makes any more."""
    return sorted(f"{a} -> {b}" for a, bs in table.items() for b in bs if (a, b) not in pairs)


def spine_welds(imports: list[Import]) -> set[tuple[str, str]]:
    return {(i.source, extension_of(i.target) or EXT) for i in spine_to_extensions(imports)}


def cross_extension(imports: list[Import]) -> set[tuple[str, str]]:
    """(folder, folder) of every import from one extension's folder into another's."""
    found = set()
    for imp in imports:
        here, there = extension_of(imp.source), extension_of(imp.target)
        if here and there and here != there:
            found.add((here, there))
    return found


def declared_requires(package_dir: Path = PACKAGE_DIR) -> dict[str, frozenset[str]]:
    """Extension folder -> the folders its Extension `requires` (names mapped to folders by the
    Extension each folder's package defines; a folder without one requires nothing). Importing
    an extension's package is cheap by contract: its heavy parts load when called."""
    import importlib

    from agent_cli.runtime.extensions.contract import Extension

    found: dict[str, Extension] = {}
    for folder in sorted(p.parent.name for p in (package_dir / "ext").glob("*/__init__.py")):
        module = importlib.import_module(f"{EXT}.{folder}")
        made = [v for v in vars(module).values() if isinstance(v, Extension)]
        if made:
            found[folder] = made[0]
    folder_of = {extension.name: folder for folder, extension in found.items()}
    return {
        folder: frozenset(folder_of.get(name, name) for name in extension.requires)
        for folder, extension in found.items()
    }


def test_the_spine_imports_no_extension_beyond_the_shrinking_welds():
    spine = spine_to_extensions(current_imports())
    pairs = {(i.source, extension_of(i.target) or EXT): i for i in spine}
    found = [
        describe(imp)
        for pair, imp in sorted(pairs.items())
        if pair[1] not in WELDS.get(pair[0], frozenset())
    ]
    fail_on(found, "spine modules import extension code (plug it in through the contract)")


def test_the_welds_tables_only_shrink():
    found = stale(spine_welds(current_imports()), WELDS)
    found += [
        f"{line} (extensions)" for line in stale(cross_extension(current_imports()), CROSS_WELDS)
    ]
    fail_on(found, "welds that no longer exist: delete them from WELDS / CROSS_WELDS")


def test_an_extension_imports_another_only_if_it_requires_it():
    requires = declared_requires()
    table = {
        name: CROSS_WELDS.get(name, frozenset()) | requires.get(name, frozenset())
        for name in {*CROSS_WELDS, *requires}
    }
    found = unlisted(cross_extension(current_imports()), table)
    fail_on(found, "extensions import extensions they do not name in `requires`")


def test_the_extension_checks_find_each_kind_of_violation(tmp_path: Path):
    modules = make_package(
        tmp_path,
        {
            "__init__.py": "",
            "ext/__init__.py": "",
            "ext/goals/__init__.py": "from agent_cli.ext.checkpoints import turn\n",
            "ext/goals/ledger.py": "def f():\n    from ..jobs import board\n",
            "ext/checkpoints/__init__.py": "",
            "ext/checkpoints/turn.py": "from agent_cli import ext\n",
            "ext/jobs/__init__.py": "",
            "ext/jobs/board.py": "",
            "runtime/__init__.py": "",
            "runtime/build.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from agent_cli.ext.jobs.board import Board\n",
            "runtime/lazy.py": "def f():\n    import agent_cli.ext\n",
        },
    )
    imports = all_imports(modules)
    assert spine_welds(imports) == {
        ("agent_cli.runtime.build", "jobs"),
        ("agent_cli.runtime.lazy", EXT),
    }
    assert cross_extension(imports) == {("goals", "checkpoints"), ("goals", "jobs")}
    table = {"agent_cli.runtime.build": frozenset({"jobs", "lsp"})}
    assert unlisted(spine_welds(imports), table) == [f"agent_cli.runtime.lazy -> {EXT}"]
    assert stale(spine_welds(imports), table) == ["agent_cli.runtime.build -> lsp"]
    requires = {"goals": frozenset({"checkpoints"})}
    assert unlisted(cross_extension(imports), requires) == ["goals -> jobs"]
