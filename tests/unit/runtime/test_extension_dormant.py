"""Built-in extensions are imported only when something asks for them (issue 58): a settings
key, a command, the workspace, a port or a service; until then they stay dormant. The
built-ins here are modules written by the test, declared as the registry declares its own."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.runtime.extensions import Extension, ExtensionContext
from agent_cli.runtime.extensions.discovery import BUILTIN, Asking, Declared
from agent_cli.runtime.extensions.registry import discover

MODULE = """
from agent_cli.runtime.extensions import Extension

made = []


class Board:
    def __init__(self, runtime):
        self.runtime = runtime
        self.closed = False

    async def aclose(self):
        self.closed = True


def wrapper(context):
    made.append(context.name)
    return ("wrapped", context.session_id)


EXTENSION = Extension(
    name="{name}", requires={requires}, service=Board, ports={{"shell_wrapper": wrapper}}
)
"""


@pytest.fixture
def builtins(tmp_path: Path) -> Iterator[list[Declared]]:
    """Three built-ins: `tray` asked by a settings key only, `shelf` by a port, `stand` (which
    requires `shelf`) by the `stand` command or a workspace file `.stand`."""
    folder = tmp_path / "mods"
    folder.mkdir()
    for name, requires in [("tray", ()), ("shelf", ()), ("stand", ("shelf",))]:
        text = MODULE.format(name=name, requires=repr(requires))
        (folder / f"fake_{name}.py").write_text(text, encoding="utf-8")
    sys.path.insert(0, str(folder))
    yield [
        Declared("tray", "fake_tray:EXTENSION", BUILTIN, asked=lambda a: False),
        Declared("shelf", "fake_shelf:EXTENSION", BUILTIN, lambda a: False, ("shell_wrapper",)),
        Declared(
            "stand",
            "fake_stand:EXTENSION",
            BUILTIN,
            asked=lambda a: a.file(".stand"),
            commands=(("stand", "Stand things up."),),
        ),
    ]
    sys.path.remove(str(folder))
    for name in ("fake_tray", "fake_shelf", "fake_stand"):
        sys.modules.pop(name, None)


def context_for(tmp_path: Path) -> ExtensionContext:
    return ExtensionContext("?", tmp_path, Paths(tmp_path), Settings(), "s-1")


def test_nothing_asked_nothing_imported(builtins: list[Declared], tmp_path: Path) -> None:
    found = discover(path=[], builtins=builtins, asking=Asking(frozenset(), tmp_path, "run"))
    assert found.names() == []
    assert sorted(found.dormant) == ["shelf", "stand", "tray"]
    assert not {"fake_tray", "fake_shelf", "fake_stand"} & set(sys.modules)
    assert found.cli_commands() == {"stand": ("stand", "Stand things up.")}  # listed, not loaded
    assert "fake_stand" not in sys.modules


def test_a_settings_key_a_command_or_a_file_asks(builtins: list[Declared], tmp_path: Path) -> None:
    by_key = discover(path=[], builtins=builtins, asking=Asking(frozenset({"tray"}), tmp_path))
    assert by_key.names() == ["tray"]
    by_command = discover(path=[], builtins=builtins, asking=Asking(command="stand"))
    assert by_command.names() == ["shelf", "stand"]  # what it requires comes first
    (tmp_path / ".stand").write_text("", encoding="utf-8")
    by_file = discover(path=[], builtins=builtins, asking=Asking(frozenset(), tmp_path, "run"))
    assert by_file.names() == ["shelf", "stand"]


def test_a_port_wakes_its_provider(builtins: list[Declared], tmp_path: Path) -> None:
    found = discover(path=[], builtins=builtins, asking=Asking(frozenset(), tmp_path, "run"))
    assert found.port("no_such_port", lambda name: context_for(tmp_path)) is None
    assert found.names() == []
    made = found.port("shell_wrapper", lambda name: context_for(tmp_path))
    assert made == ("wrapped", "s-1")
    assert found.names() == ["shelf"]
    assert "fake_tray" not in sys.modules


def test_a_service_is_made_once_and_closed_at_the_end(
    builtins: list[Declared], tmp_path: Path
) -> None:
    found = discover(path=[], builtins=builtins, asking=Asking(frozenset(), tmp_path, "run"))
    runtime = object()
    board = found.service("tray", runtime)
    assert board is found.service("tray", runtime)
    assert getattr(board, "runtime", None) is runtime
    assert found.service("nothing", runtime) is None
    asyncio.run(found.aclose())
    assert getattr(board, "closed", False) is True


def test_a_dormant_one_that_fails_is_said_once(
    builtins: list[Declared], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = Declared("gone", "fake_missing_module:EXTENSION", BUILTIN, lambda a: False, ("asker",))
    found = discover(path=[], builtins=[*builtins, broken], asking=Asking(frozenset(), tmp_path))
    assert found.port("asker", lambda name: context_for(tmp_path)) is None
    assert found.port("asker", lambda name: context_for(tmp_path)) is None
    err = capsys.readouterr().err
    assert err.count("extension 'gone'") == 1, err
    assert "Traceback" not in err
    assert isinstance(found.get("tray") or Extension("x"), Extension)
