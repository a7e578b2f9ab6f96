"""What a front end may do, it does through the Runtime: `submit()` tells `!cmd`, `@path` and plain
text apart; the steering inbox follows the current session across a switch; /undo's store, its
turns and its rewind are the runtime's. In process, against the fake model (§16 checked there)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from agent_cli.core.events import Event, ToolEnd, TurnEnd
from agent_cli.ext.checkpoints.service import CheckpointsOff
from agent_cli.runtime.runtime import Runtime
from tests.e2e.checkpoint_support import rewinds
from tests.e2e.runtime_support import make_runtime
from tests.fake_model import FakeAnthropic


async def submitted(runtime: Runtime, text: str) -> list[Event]:
    return [event async for event in runtime.submit(text)]


def run_then_close(runtime: Runtime, *texts: str) -> list[list[Event]]:
    async def go() -> list[list[Event]]:
        try:
            return [await submitted(runtime, text) for text in texts]
        finally:
            await runtime.aclose(wait=False)

    return asyncio.run(go())


@pytest.mark.usefixtures("sdk_env")
def test_a_bang_runs_the_shell_and_the_next_prompt_carries_its_output(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.text("seen it")
    runtime = make_runtime(tmp_path, monkeypatch)
    shell, turn = run_then_close(runtime, "  !echo from-the-shell ", "what did it print?")
    assert [type(e) for e in shell] == [ToolEnd]
    assert isinstance(shell[0], ToolEnd)
    assert "from-the-shell" in shell[0].output
    assert isinstance(turn[-1], TurnEnd)
    (body,) = fake_model.bodies()  # the shell asked no model
    sent = json.dumps(body["messages"])
    assert "I ran `echo from-the-shell` in the shell" in sent
    assert "from-the-shell\\n" in sent


@pytest.mark.usefixtures("sdk_env")
def test_a_lone_bang_and_plain_text_are_prompts(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake_model.script.text("one").text("two")
    runtime = make_runtime(tmp_path, monkeypatch)
    run_then_close(runtime, "!", "hello there")
    first, second = fake_model.bodies()
    assert first["messages"][0]["content"][0]["text"] == "!"
    assert second["messages"][-1]["content"][-1]["text"] == "hello there"


@pytest.mark.usefixtures("sdk_env")
def test_an_at_path_attaches_the_file(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "notes.txt").write_text("the secret word is marmalade\n")
    fake_model.script.text("read it")
    runtime = make_runtime(tmp_path, monkeypatch)
    run_then_close(runtime, "what does @notes.txt say?")
    (body,) = fake_model.bodies()
    assert "marmalade" in json.dumps(body["messages"][0])


@pytest.mark.usefixtures("sdk_env")
def test_the_inbox_follows_the_session_across_a_switch(tmp_path: Path, monkeypatch):
    runtime = make_runtime(tmp_path, monkeypatch)
    heard: list[list[str]] = []
    runtime.work.watch_inbox(lambda: heard.append(runtime.work.queued))
    first = runtime.session.id
    runtime.switch()  # /clear
    assert runtime.session.id != first
    assert runtime.work.steer("and the README") is False  # no turn runs: it waits for the next one
    assert runtime.work.queued == ["and the README"]
    assert heard[-1] == ["and the README"]
    runtime.work.steer("and the docs")
    assert runtime.work.next_queued() == "and the README"
    assert runtime.work.recall_queued() == "and the docs"
    assert runtime.work.queued == []
    assert runtime.work.give_back_queued() == []
    assert len(heard) == 4  # queued twice, taken twice: each change told once
    asyncio.run(runtime.aclose(wait=False))


@pytest.mark.skipif(shutil.which("git") is None, reason="checkpoints need git")
@pytest.mark.usefixtures("sdk_env")
def test_undo_through_the_runtime_takes_code_and_conversation_back(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "keep.txt").write_text("kept\n")
    fake_model.script.tool_use("write_file", path="made.txt", content="new\n").text("wrote it")
    runtime = make_runtime(tmp_path, monkeypatch)
    first = runtime.session.id

    async def go() -> tuple[list[str], str, list[str], bool]:
        try:
            await submitted(runtime, "make a file")
            (turn,) = rewinds(runtime).checkpoints()
            changed = await rewinds(runtime).changed_since(turn)
            diff = await rewinds(runtime).diff_since(turn)
            lines, switched = await rewinds(runtime).go_back(turn, "both")
            return changed, diff, lines, switched
        finally:
            await runtime.aclose(wait=False)

    changed, diff, lines, switched = asyncio.run(go())
    assert changed == ["A made.txt"]
    assert "+new" in diff
    assert not (tmp_path / "made.txt").exists()
    assert (tmp_path / "keep.txt").read_text() == "kept\n"
    assert switched
    assert runtime.session.id != first
    assert not any(line.startswith("resume it") for line in lines)  # we are in it already
    assert rewinds(runtime).checkpoints() == []  # the new session has no turn of its own yet


@pytest.mark.usefixtures("sdk_env")
def test_checkpoints_off_is_said_not_crashed(tmp_path: Path, monkeypatch):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text('{"checkpoints": {"enabled": false}}')
    runtime = make_runtime(tmp_path, monkeypatch)
    with pytest.raises(CheckpointsOff, match=r"checkpoints\.enabled is false"):
        rewinds(runtime).checkpoints()
    assert rewinds(runtime).session_files() is None
    asyncio.run(runtime.aclose(wait=False))
