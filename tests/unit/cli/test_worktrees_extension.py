"""Worktrees and batch are extensions: a plain `agent run` imports neither; a `task` with
isolation wakes worktrees through the port it asks for (batch stays asleep); and with both
left out of the registry a plain run works, while what needs them says so in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_cli.cli import extension_commands
from agent_cli.runtime.extensions import registry
from tests.e2e.helpers import REPO
from tests.e2e.worktree_support import make_repo
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

OURS = ("worktrees", "batch")
ISOLATED: dict[str, Any] = {"description": "edit a", "prompt": "Do it.", "isolation": "worktree"}

PROBE = """
import sys
from agent_cli.cli.entry import run_in_process
code = run_in_process(sys.argv[1:])
names = sorted(m for m in sys.modules if m.startswith(("agent_cli.ext.worktrees",
    "agent_cli.ext.batch")))
sys.stderr.write("\\nEXIT=" + str(code) + "\\nLOADED=" + ",".join(names) + "\\n")
"""


def _loaded(env: dict[str, str], workspace: Path, *args: str) -> list[str]:
    """What of the two extensions a whole `agent ARGS` imported, in a new interpreter (this
    one has imported them for other tests)."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=workspace,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = proc.stderr.splitlines()
    assert "EXIT=0" in lines, proc.stderr
    (loaded,) = [line for line in lines if line.startswith("LOADED=")]
    return [name for name in loaded.removeprefix("LOADED=").split(",") if name]


def test_a_plain_run_imports_neither_extension(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake_model.script.text("hello")
    assert _loaded(fake_env, tmp_path, "run", "-p", "hi", "-q") == []


def test_an_isolated_task_wakes_worktrees_alone(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    fake_model.script.tool_use("task", **ISOLATED).text("back")
    fake_model.route(lambda body: "You are a subagent" in str(body.get("system"))).tool_use(
        "submit_note", conclusion="nothing to do", evidence=[], file_refs=[], confidence="high"
    )
    loaded = _loaded(fake_env, repo, "run", "-p", "go", "-q")
    assert "agent_cli.ext.worktrees.lanes" in loaded
    assert not [name for name in loaded if name.startswith("agent_cli.ext.batch")]


@pytest.fixture
def without_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as if both extension folders and their lines were gone."""
    left = tuple(d for d in registry.BUILTINS if d.name not in OURS)
    monkeypatch.setattr(registry, "BUILTINS", left)
    defaults = registry.discover.__defaults__
    assert defaults is not None
    monkeypatch.setattr(registry.discover, "__defaults__", (defaults[0], left, defaults[2]))
    monkeypatch.setattr(extension_commands, "BUILTINS", left)


def _last_results(fake_model: FakeAnthropic) -> list[str]:
    body = fake_model.bodies()[-1]
    return [str(block["content"]) for block in body["messages"][-1]["content"]]


@pytest.mark.usefixtures("without_them")
def test_without_them_a_plain_run_works(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake_model.script.text("hello")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "hello"
    assert "WARNING" not in proc.stderr


@pytest.mark.usefixtures("without_them")
def test_without_worktrees_an_isolated_task_says_so_and_the_run_goes_on(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    fake_model.script.tool_use("task", **ISOLATED).text("understood")
    proc = run_cli(fake_env, repo, "run", "-p", "go", "--permission-mode", "accept-edits")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "understood"
    (result,) = _last_results(fake_model)
    assert result == "isolation worktree is not available here (no worktrees extension)"
    assert not (repo / ".agent" / "worktrees").exists()  # no subagent ran anywhere
    assert len(fake_model.bodies()) == 2


@pytest.mark.usefixtures("without_them")
def test_without_worktrees_the_worktree_flag_is_one_line_and_exit_2(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    proc = run_cli(fake_env, repo, "run", "-p", "hi", "--worktree", "fix")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "agent: --worktree: agent worktrees are not available (no worktrees extension)"
    ]
    assert fake_model.requests == []
    assert not (repo / ".agent").exists()


@pytest.mark.usefixtures("without_them")
def test_without_them_their_commands_are_unknown(fake_env: dict[str, str], tmp_path: Path) -> None:
    listing = run_cli(fake_env, tmp_path, "--help")
    assert listing.returncode == 0
    assert "worktrees" not in listing.stdout
    assert "batch" not in listing.stdout
    for command in ("worktrees", "batch"):
        proc = run_cli(fake_env, tmp_path, command, "--help")
        assert proc.returncode == 2
        assert f"No such command '{command}'" in proc.stderr
