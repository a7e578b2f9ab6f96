"""Checkpoints as an extension: a run without it (its registry line gone) still works and takes
no checkpoint; a command that takes no turn never imports it; a run reaches its rewinds
through `runtime.extension("checkpoints")`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.core.events import CheckpointSaved, FilesChanged, TurnEnd
from agent_cli.core.options import Options
from agent_cli.runtime.build import build_runtime
from agent_cli.runtime.extensions.discovery import Asking
from agent_cli.runtime.extensions.registry import BUILTINS, discover
from tests.e2e.runtime_support import drive
from tests.fake_model import FakeAnthropic

REPO = Path(__file__).resolve().parents[3]
WITHOUT = [d for d in BUILTINS if d.name != "checkpoints"]


@pytest.mark.usefixtures("sdk_env")
def test_a_run_without_the_extension_works_and_takes_no_checkpoint(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_model.script.tool_use("write_file", path="made.txt", content="new\n").text("wrote it")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    options = Options(workspace=tmp_path, permission_mode="bypass", one_shot=True)
    extensions = discover(builtins=WITHOUT, asking=Asking(command="run"))
    runtime = build_runtime(options, quiet=True, extensions=extensions)
    assert runtime.extension("checkpoints") is None
    events = asyncio.run(drive(runtime, "make a file"))
    assert (tmp_path / "made.txt").read_text() == "new\n"
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "wrote it"
    assert not [e for e in events if isinstance(e, CheckpointSaved | FilesChanged)]
    assert not runtime.paths.checkpoints.exists()  # no store was made


def test_it_is_asked_by_a_run_and_a_chat_and_dormant_otherwise() -> None:
    for command in ("run", "chat"):
        assert "checkpoints" in discover(path=[], asking=Asking(command=command)).names()
    other = discover(path=[], asking=Asking(command="sessions"))
    assert "checkpoints" not in other.names()
    assert "checkpoints" in other.dormant
    asked = discover(path=[], asking=Asking(settings=frozenset({"checkpoints"}), command="x"))
    assert "checkpoints" in asked.names()  # its settings section asks for it


def test_a_command_that_takes_no_turn_never_imports_it(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from agent_cli.cli.entry import run_in_process\n"
        "code = run_in_process(['sessions', 'list'])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('agent_cli.ext.checkpoints'))\n"
        "print(code, loaded)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "AGENT_NO_SERVER": "1"}
    env.pop("XDG_CONFIG_HOME", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.stdout.strip().splitlines()[-1] == "0 []", done.stderr
