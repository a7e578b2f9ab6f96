"""`agent ps` answered before typer loads: the same bytes as typer's `ps` (table, JSON, --here,
none at all), without importing typer, the contract or pydantic; what it leaves to typer
(--help) still answered there; `--watch` on a terminal draws the list again in place."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agent_cli.cli.entry import QUICK
from agent_cli.ext.background import EXTENSION, listing, registry
from agent_cli.runtime.extensions.registry import BUILTINS
from tests.e2e.helpers import REPO

NOW = 1_800_000_000.0


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(time, "time", lambda: NOW)  # the FOR column, the same in both
    return registry.folder()


def recorded(folder: Path, workspace: str, name: str, **fields: object) -> None:
    path = folder / f"{registry.key(Path(workspace), name)}.json"
    registry.update(path, name=name, workspace=workspace, created=NOW - 100, **fields)


def slow(*args: str) -> str:
    app = EXTENSION.cli
    assert app is not None
    command: typer.Typer = app()
    result = CliRunner().invoke(command, ["ps", *args])
    assert result.exit_code == 0, result.output
    return result.output


def quick(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert listing.quick(list(args)) == 0
    return capsys.readouterr().out


def test_the_quick_answer_is_typers_byte_for_byte(
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.chdir(tmp_path)
    assert quick(capsys) == slow() == f"{listing.EMPTY}\n"
    recorded(folder, str(tmp_path), "here-done", state="done", turns=2, cost_usd=0.5, last="ok")
    recorded(folder, str(tmp_path), "killed", state="working", pid=2**22 + 7, turns=1)
    me = {"pid": os.getpid(), "process_start": registry.process_start(os.getpid())}
    recorded(folder, "/elsewhere", "üñí", state="idle", worktree="üñí", last="x" * 90, **me)
    for flags in ((), ("--json",), ("--here",), ("--here", "--json")):
        assert quick(capsys, *flags) == slow(*flags), flags
    rows = json.loads(quick(capsys, "--json"))
    assert [(r["name"], r["state"]) for r in rows] == [
        ("here-done", "done"), ("killed", "stopped"), ("üñí", "idle"),
    ]  # fmt: skip
    here = quick(capsys, "--here")
    assert "stopped" in here
    assert "/elsewhere" not in here


def test_agent_ps_loads_neither_typer_nor_the_extension_and_leaves_help_to_typer(folder: Path):
    probe = (
        "import sys\n"
        "from agent_cli.cli.entry import run_in_process\n"
        "code = run_in_process(sys.argv[1:])\n"
        "heavy = ('typer', 'pydantic', 'agent_cli.runtime.extensions.contract')\n"
        "print(code, [m for m in heavy if m in sys.modules], file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", probe, "ps", *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)

    answered = run("--json")
    assert (answered.stdout, answered.stderr) == ("[]\n", "0 []\n")
    helped = run("--help")  # typer's: the extension imported whole after the quick try
    assert "--watch" in helped.stdout
    assert helped.stderr.startswith("0 ")


def test_each_quick_command_is_its_extensions_declared_command():
    for command, module in QUICK.items():
        (owner,) = [d for d in BUILTINS if module.startswith(d.target.partition(":")[0] + ".")]
        assert command in dict(owner.commands)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_watch_on_a_terminal_draws_again_in_place_when_something_changes(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    path = folder / "w.json"
    registry.update(path, name="w", workspace="/ws", state="done", created=NOW, last="first")
    changes = iter([lambda: None, lambda: registry.update(path, last="second")])

    def tick(_: float) -> None:  # one poll: the next change, then Ctrl-C
        change = next(changes, None)
        if change is None:
            raise KeyboardInterrupt
        change()

    monkeypatch.setattr(time, "sleep", tick)
    out = Terminal()
    assert listing.watch(False, False, out) == 0
    frames = out.getvalue().split(listing.HOME_AND_CLEAR)
    assert frames[0] == ""  # each frame starts at the top of a cleared screen
    assert ["first" in f for f in frames[1:]] == [True, False]  # not drawn again unchanged
    assert "second" in frames[2]
