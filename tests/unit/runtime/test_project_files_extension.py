"""Project files plug in (issue 58): a plain run in an empty workspace leaves the extension
dormant (never imported) and still offers `task`'s built-in `explore` type; with the extension
gone from the registry a run works the same; a workspace with project files asks for it."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.events import Event, TurnEnd
from agent_cli.core.options import Options
from agent_cli.runtime.build import asking, build_runtime, overrides_of
from agent_cli.runtime.extensions import asked
from agent_cli.runtime.extensions.discovery import Asking, Declared
from agent_cli.runtime.extensions.registry import BUILTINS, Extensions, discover
from agent_cli.runtime.runtime import Runtime
from tests.e2e.runtime_support import drive
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.usefixtures("sdk_env", "fresh_logging")

NAME = "project_files"
EXPLORE_LINE = "- explore: Read-only exploration: finds files, reads code and answers"


def a_run(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, builtins: tuple[Declared, ...]
) -> tuple[Runtime, Extensions]:
    monkeypatch.setenv("HOME", str(workspace / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(workspace / "config"))
    options = Options(workspace=workspace, one_shot=True, quiet=True)
    extensions = discover([], builtins, asking(options, overrides_of(options)))
    return build_runtime(options, quiet=True, extensions=extensions), extensions


def task_description(fake_model: FakeAnthropic) -> str:
    tools: list[dict[str, Any]] = fake_model.bodies()[-1]["tools"]
    return str(next(t for t in tools if t["name"] == "task")["description"])


def answered(runtime: Runtime, prompt: str = "hi") -> str:
    events: list[Event] = asyncio.run(drive(runtime, prompt))
    assert isinstance(events[-1], TurnEnd)
    return events[-1].text


def test_a_plain_run_leaves_project_files_dormant_and_offers_explore(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.text("hello")
    runtime, extensions = a_run(tmp_path, monkeypatch, BUILTINS)
    assert answered(runtime) == "hello"
    assert NAME in extensions.dormant  # not woken by the turn either
    assert NAME not in extensions.names()
    assert EXPLORE_LINE in task_description(fake_model)


def test_a_run_without_project_files_in_the_registry_works_and_offers_explore(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / ".claude" / "agents").mkdir(parents=True)  # would ask for it, were it there
    fake_model.script.text("hello")
    kept = tuple(d for d in BUILTINS if d.name != NAME)
    runtime, extensions = a_run(tmp_path, monkeypatch, kept)
    assert answered(runtime) == "hello"
    assert NAME not in {*extensions.names(), *extensions.dormant}
    assert EXPLORE_LINE in task_description(fake_model)


def test_a_workspace_agent_file_loads_the_extension_and_task_lists_its_type(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\ndescription: Reviews a diff\n---\nReview it.\n")
    fake_model.script.text("hello")
    runtime, extensions = a_run(tmp_path, monkeypatch, BUILTINS)
    assert answered(runtime) == "hello"
    assert NAME in extensions.names()
    description = task_description(fake_model)
    assert EXPLORE_LINE in description
    assert "- reviewer: Reviews a diff" in description


def test_what_asks_for_project_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    home, repo = tmp_path / "home", tmp_path / "repo"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    workspace = repo / "pkg"
    workspace.mkdir(parents=True)
    (repo / ".git").mkdir()
    (workspace / ".claude").mkdir()  # an empty folder asks for nothing
    (tmp_path / ".claude" / "commands").mkdir(parents=True)  # above the repository: not read
    here = Asking(workspace=workspace, command="run")
    assert not asked.project_files(here)
    (repo / ".agents" / "skills").mkdir(parents=True)  # the repository's root is read
    assert asked.project_files(here)
    (repo / ".agents" / "skills").rmdir()
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}")  # the user's Claude Code settings
    assert asked.project_files(here)


@pytest.mark.parametrize("session_mode", ["plan", "default", "bypass"])
def test_the_spines_explore_is_the_extensions_explore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_mode: str
):
    """Project files or not, `task` lists `explore` alike and runs it with the same profile."""
    from agent_cli.core.settings.schema import HooksSettings, PermissionSettings, Settings
    from agent_cli.ext.project_files.agent_types import AgentTypes
    from agent_cli.ext.project_files.catalog import load_project_files
    from agent_cli.policy.gate import PolicyGate
    from agent_cli.policy.hooks import Hooks
    from agent_cli.policy.permissions import Permissions
    from agent_cli.subagent.explore import ExploreOnly

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    permissions = Permissions(PermissionSettings(mode=session_mode))
    hooks = Hooks(HooksSettings(), "s", tmp_path)
    files = load_project_files(tmp_path)
    theirs = AgentTypes(files, Settings(), lambda: "m", permissions, hooks, [])
    ours = ExploreOnly(Settings(), lambda: "m", permissions, hooks)
    assert (ours.names(), ours.listing()) == (theirs.names(), theirs.listing())
    mine, other = ours.profile("explore"), theirs.profile("explore")
    assert mine is not None
    assert other is not None
    assert mine.gate is None if session_mode == "plan" else isinstance(mine.gate, PolicyGate)
    assert type(mine.gate) is type(other.gate)
    if isinstance(mine.gate, PolicyGate) and isinstance(other.gate, PolicyGate):
        assert mine.gate.permissions.mode == other.gate.permissions.mode == "plan"
    assert replace(mine, gate=None) == replace(other, gate=None)
    assert ours.profile("reviewer") is None


def test_a_chat_asks_for_project_files_in_an_empty_workspace(tmp_path: Path):
    """Its /commands, /agents and /skills say there are none rather than being unknown."""
    assert asked.project_files(Asking(workspace=tmp_path, command="chat"))
    options = Options(workspace=tmp_path)  # agent chat
    assert NAME in discover([], BUILTINS, asking(options, overrides_of(options))).names()
