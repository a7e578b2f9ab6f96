"""The extension registry: what is found and loaded, in which order, and what is left out with one
line (issue 58). Packages are laid out as `pip install` leaves them (tests/extension_packages.py)
and found on an explicit path; nothing is put on this process's sys.path."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.runtime.extensions import (
    Extension,
    ExtensionContext,
    ExtensionSettings,
    ExtensionTool,
    ToolContext,
    ToolInput,
    ToolResult,
)
from agent_cli.runtime.extensions.checks import Loaded, in_order
from agent_cli.runtime.extensions.discovery import declared
from agent_cli.runtime.extensions.registry import Extensions, discover
from agent_cli.tools.read_file import ReadFile
from tests.extension_packages import install


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    """A site-packages folder whose modules can be imported, forgotten afterwards."""
    folder = tmp_path / "site"
    folder.mkdir()
    sys.path.insert(0, str(folder))
    before = set(sys.modules)
    yield folder
    sys.path.remove(str(folder))
    for name in set(sys.modules) - before:
        if str(getattr(sys.modules[name], "__file__", "")).startswith(str(folder)):
            del sys.modules[name]


class EchoInput(ToolInput):
    text: str


class Echo(ExtensionTool[EchoInput]):
    description = "Echo the text."
    input_model = EchoInput
    read_only = True

    def __init__(self, name: str = "echo") -> None:
        self.name = name  # type: ignore[misc]  # one class, several names: the test's

    async def run(self, args: EchoInput, ctx: ToolContext) -> ToolResult:
        return ToolResult(args.text)


def ext(name: str, *requires: str, tools: list[str] | None = None) -> Loaded:
    made = (lambda _context: [Echo(n) for n in tools]) if tools else None
    return Loaded(Extension(name, requires=requires, tools=made), f"{name}_pkg 1.0")


def context_of(tmp_path: Path) -> ExtensionContext:
    return ExtensionContext("x", tmp_path, Paths(tmp_path), Settings(), "s-1")


def lines(extensions: Extensions) -> list[str]:
    return [p.line for p in extensions.problems]


def test_each_extension_loads_after_those_it_requires():
    found = [ext("goals", "checkpoints"), ext("batch", "worktrees"), ext("worktrees")]
    ordered, problems = in_order([*found, ext("checkpoints", "base"), ext("base")])
    assert [i.extension.name for i in ordered] == [
        "base",
        "checkpoints",
        "goals",
        "worktrees",
        "batch",
    ]
    assert problems == []


def test_a_missing_dependency_leaves_out_what_needs_it_with_a_line_each():
    found = [ext("goals", "checkpoints"), ext("report", "goals"), ext("a", "b"), ext("b", "a")]
    ordered, problems = in_order([*found, ext("plain")])
    assert [i.extension.name for i in ordered] == ["plain"]
    assert [p.line for p in problems] == [
        "extension 'goals' (package goals_pkg 1.0): needs 'checkpoints', which is not installed; "
        "skipped",
        "extension 'report' (package report_pkg 1.0): needs 'goals', which was skipped; skipped",
        "extension 'b' (package b_pkg 1.0): needs 'a', which needs it (a -> b -> a); skipped",
        "extension 'a' (package a_pkg 1.0): needs 'b', which was skipped; skipped",
    ]


def test_a_tool_name_already_taken_is_refused_with_a_clear_line(tmp_path: Path):
    one, two = ext("one", tools=["echo", "read_file"]), ext("two", tools=["echo"])
    extensions = Extensions([one, two, ext("three", tools=["shout"])])
    tools, problems = extensions.tools(lambda name: context_of(tmp_path), ["read_file", "bash"])
    assert [t.name for t in tools] == ["echo", "shout"]
    assert [p.line for p in problems] == [
        "extension 'one' (package one_pkg 1.0): tool 'read_file': 'read_file' is already offered "
        "by the agent; not offered",
        "extension 'two' (package two_pkg 1.0): tool 'echo': 'echo' is already offered by "
        "extension 'one'; not offered",
    ]


def test_a_tool_that_cannot_be_offered_is_left_out_and_the_others_stay(tmp_path: Path):
    def broken(_context: ExtensionContext) -> list[Echo]:
        raise ValueError("no greeting configured")

    def odd(_context: ExtensionContext) -> list[object]:
        return [ReadFile(), "not a tool", Echo("bad name!"), Echo("fine")]

    extensions = Extensions([
        Loaded(Extension("broken", tools=broken), "broken 1"),
        Loaded(Extension("odd", tools=odd), "odd 1"),  # type: ignore[arg-type]
    ])  # fmt: skip
    tools, problems = extensions.tools(lambda name: context_of(tmp_path), [])
    assert [t.name for t in tools] == ["fine"]
    assert [p.line for p in problems] == [
        "extension 'broken' (package broken 1): its tools failed: ValueError: no greeting "
        "configured",
        "extension 'odd' (package odd 1): tool 'read_file': make it an ExtensionTool "
        "(agent_cli.runtime.extensions); not offered",  # a package's tool brings its permission
        "extension 'odd' (package odd 1): tool '?': a str is not a Tool; not offered",
        "extension 'odd' (package odd 1): tool 'bad name!': a tool name has 1-64 letters, digits, "
        "'_' or '-'; not offered",
    ]
    assert "Traceback" in problems[0].detail  # for the log file


def test_commands_of_one_name_the_first_extension_keeps():
    from agent_cli.runtime.extensions import SlashCommand

    def nothing(port: object, arg: str) -> None:
        return None

    first = Extension("a", slash_commands=[SlashCommand("/go", "a's", nothing)])
    second = Extension("b", slash_commands=[SlashCommand("/go", "b's", nothing),
                                            SlashCommand("go", "no slash", nothing)])  # fmt: skip
    extensions = Extensions([Loaded(first, "a 1"), Loaded(second, "b 1")])
    assert [(name, c.about) for name, c in extensions.commands] == [("a", "a's")]
    assert lines(extensions) == [
        "extension 'b' (package b 1): /go is already extension 'a''s; not added",
        "extension 'b' (package b 1): command 'go' is not a /name; not added",
    ]


GOOD = """
from agent_cli.runtime.extensions import Extension
extension = Extension("good")
"""


def test_broken_packages_are_named_in_a_line_each_and_skipped(site: Path):
    install(site, "good-ext", "1.0", {"good": "good_ext:extension"}, {"good_ext.py": GOOD})
    cases = {
        "raises": "raise ImportError('needs numpy')",
        "exits": "import sys\nsys.exit(3)",
        "wrong": "extension = 42",
        "misnamed": "from agent_cli.runtime.extensions import Extension\n"
        "extension = Extension('other')",
        "model": "from agent_cli.runtime.extensions import Extension\n"
        "extension = Extension('model')",  # a key of the agent's own settings
        "loose": "from pydantic import BaseModel\n"
        "from agent_cli.runtime.extensions import Extension\n"
        "class S(BaseModel):\n    x: int = 1\n"
        "extension = Extension('loose', settings=S)",
        "needy": "from agent_cli.runtime.extensions import ExtensionSettings, Extension\n"
        "class S(ExtensionSettings):\n    x: int\n"
        "extension = Extension('needy', settings=S)",
    }
    for name, text in cases.items():
        install(site, f"{name}-ext", "0.1", {name: f"{name}_ext:extension"},
                {f"{name}_ext.py": text})  # fmt: skip
    install(site, "twin-ext", "2.0", {"good": "good_ext:extension"}, {})
    extensions = discover([str(site)], builtins=())  # the packages alone
    assert extensions.names() == ["good"]
    pre = {name: f"extension '{name}' (package {name}_ext 0.1): " for name in cases}
    assert lines(extensions) == [  # in the folders' order
        pre["exits"] + "import failed: SystemExit: 3; skipped",
        pre["loose"] + "its settings model S must refuse unknown keys (extra='forbid'); skipped",
        pre["misnamed"] + "it calls itself 'other' under the entry point 'misnamed'; skipped",
        pre["model"] + "'model' is a key of the agent's own settings; skipped",
        pre["needy"] + "its settings model S has no default for 'x'; skipped",
        pre["raises"] + "import failed: ImportError: needs numpy; skipped",
        "extension 'good' (package twin_ext 2.0): the name is taken by package good_ext 1.0; "
        "skipped",
        pre["wrong"] + "wrong_ext:extension is of type int, not an Extension",
    ]
    assert extensions.ignored() == {*cases} - {"good"}  # their sections are left unread


def test_nothing_is_imported_unless_a_package_declares_the_group(site: Path):
    dist = install(site, "other", "1.0", {}, {"other_mod.py": "raise SystemExit('imported')"})
    (dist / "entry_points.txt").write_text("[console_scripts]\nother = other_mod:main\n")
    assert discover([str(site)], builtins=()).names() == []
    assert "other_mod" not in sys.modules


def test_the_working_directory_is_never_searched(site: Path, monkeypatch: pytest.MonkeyPatch):
    """`python -m agent_cli` puts it on the import path: a repository could plant one."""
    install(site, "planted", "1.0", {"planted": "planted:extension"}, {"planted.py": GOOD})
    assert [d.name for d in declared([str(site)])] == ["planted"]
    monkeypatch.chdir(site)
    assert declared([str(site), ""]) == []


class Greeting(ExtensionSettings):
    greeting: str = "Hello"


class Other(ExtensionSettings):
    volume: int = 1


def test_the_section_a_context_gives_is_the_extensions_own(tmp_path: Path):
    from agent_cli.core.settings.schema import parse_settings

    settings = parse_settings({"hi": {"greeting": "Howdy"}}, sections=(("hi", Greeting),))
    context = ExtensionContext("hi", tmp_path, Paths(tmp_path), settings, "s-1")
    assert context.section(Greeting).greeting == "Howdy"
    bare = ExtensionContext("hi", tmp_path, Paths(tmp_path), Settings(), "s-1")
    assert bare.section(Greeting).greeting == "Hello"  # made without sections: the defaults
    with pytest.raises(TypeError, match="'hi' section is a Greeting"):
        context.section(Other)
