"""Removing any one built-in extension leaves `agent run` working (issue 58, Deliver 5): for each
line of the registry's BUILTINS, a run in this process (the composition root as `agent run -p`
builds it, against the fake model) with that line gone answers, and a tool call works. And a
plain run leaves every built-in that nothing asked for dormant: never imported."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_cli.core.events import Event, ToolEnd, TurnEnd
from agent_cli.core.options import Options
from agent_cli.runtime.build import asking, build_runtime, overrides_of
from agent_cli.runtime.extensions.discovery import BUILTIN, Declared
from agent_cli.runtime.extensions.registry import BUILTINS, Extensions, discover
from agent_cli.runtime.runtime import Runtime
from tests.e2e.runtime_support import drive
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.usefixtures("sdk_env", "fresh_logging")

NEVER = Declared(
    "never_asked", "tests.unit.runtime.no_such_module:EXTENSION", BUILTIN, asked=lambda _: False
)  # a built-in no plain run asks for: loading it would be a problem line and wake it


def plain(workspace: Path) -> Options:
    return Options(workspace=workspace, one_shot=True, quiet=True)


def a_run(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, builtins: tuple[Declared, ...]
) -> tuple[Runtime, Extensions]:
    """`agent run -p` in `workspace`, no settings, with the built-ins `builtins` (no packages:
    the import path's entry points are not this test's)."""
    monkeypatch.setenv("HOME", str(workspace / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(workspace / "config"))
    options = plain(workspace)
    extensions = discover([], builtins, asking(options, overrides_of(options)))
    return build_runtime(options, quiet=True, extensions=extensions), extensions


@pytest.mark.parametrize(
    "removed", [None, *(d.name for d in BUILTINS)], ids=lambda n: f"without-{n or 'none'}"
)
def test_a_run_without_any_one_builtin_answers_and_reads_a_file(
    removed: str | None, fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    fake_model.script.tool_use("read_file", path="notes.txt").text("it says 42")
    kept = tuple(d for d in BUILTINS if d.name != removed)
    runtime, extensions = a_run(tmp_path, monkeypatch, kept)
    assert removed not in {*extensions.names(), *extensions.dormant}
    events: list[Event] = asyncio.run(drive(runtime, "what do the notes say?"))
    (read,) = [e for e in events if isinstance(e, ToolEnd)]
    assert (read.name, read.is_error) == ("read_file", False)
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "it says 42"
    (result,) = fake_model.bodies()[-1]["messages"][-1]["content"]
    assert "the answer is 42" in str(result["content"])


def test_a_plain_run_leaves_every_builtin_it_does_not_ask_for_dormant(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.text("hello")
    builtins = (*BUILTINS, NEVER)
    runtime, extensions = a_run(tmp_path, monkeypatch, builtins)
    asked = asking(plain(tmp_path), overrides_of(plain(tmp_path)))
    not_asked = {d.name for d in builtins if not d.wanted(asked)}
    assert "never_asked" in not_asked
    events = asyncio.run(drive(runtime, "hi"))
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "hello"
    assert set(extensions.dormant) == not_asked  # none woken by the turn
    assert not_asked.isdisjoint(extensions.names())
    assert extensions.problems == ()
