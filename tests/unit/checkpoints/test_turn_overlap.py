"""A turn's checkpoint is taken when the turn first may change the workspace (in a new store it is
several git calls the turn's first round used to compete with): no tool that is not read-only
runs before it and no process starts before it (a user_prompt_submit hook waits for it); a turn
that changes nothing takes it as it ends, and a turn stopped before then still gets one."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.events import CheckpointSaved, ToolStart, TurnEnd
from agent_cli.ext.checkpoints.records import Checkpoint
from agent_cli.ext.checkpoints.store import CheckpointStore
from tests.e2e.checkpoint_support import rewinds
from tests.e2e.runtime_support import drive, make_runtime
from tests.fake_model import FakeAnthropic
from tests.waiting import until

pytestmark = [
    pytest.mark.usefixtures("sdk_env"),
    pytest.mark.skipif(shutil.which("git") is None, reason="checkpoints need git"),
]


class Taken:
    """What the snapshot saw: whether the model had been asked yet, and the files it holds."""

    def __init__(self) -> None:
        self.request_seen: object = None  # what `before` said as the snapshot began
        self.files: list[str] = []


def slow_take(monkeypatch: pytest.MonkeyPatch, before: Any, seen: Taken) -> None:
    real = CheckpointStore.take

    def take(store: CheckpointStore, *args: Any, **kwargs: Any) -> Checkpoint:
        seen.request_seen = before()
        checkpoint = real(store, *args, **kwargs)
        out = store.git.run("ls-tree", "-r", "--name-only", checkpoint.tree)
        seen.files = out.decode().split()
        return checkpoint

    monkeypatch.setattr(CheckpointStore, "take", take)


def test_the_checkpoint_is_taken_before_the_first_change_not_before_the_first_request(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "seen.txt").write_text("read first\n")
    fake_model.script.tool_use("read_file", path="seen.txt")
    fake_model.script.tool_use("write_file", path="made.txt", content="new\n").text("wrote it")
    seen = Taken()
    slow_take(monkeypatch, lambda: len(fake_model.requests), seen)
    runtime = make_runtime(tmp_path, monkeypatch)
    events = asyncio.run(drive(runtime, "make a file"))
    assert seen.request_seen == 2  # the read-only round ran first: nothing to snapshot for it
    assert "made.txt" not in seen.files  # the write ran after the snapshot
    assert "seen.txt" in seen.files
    assert (tmp_path / "made.txt").read_text() == "new\n"
    kinds = [(type(e).__name__, getattr(e, "name", "")) for e in events]
    at = kinds.index(("CheckpointSaved", ""))
    assert kinds.index(("ToolEnd", "read_file")) < at < kinds.index(("ToolEnd", "write_file"))
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "wrote it"


def test_a_turn_that_changes_nothing_takes_its_checkpoint_as_it_ends(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "seen.txt").write_text("only read\n")
    fake_model.script.tool_use("read_file", path="seen.txt").text("read it")
    seen = Taken()
    slow_take(monkeypatch, lambda: len(fake_model.requests), seen)
    runtime = make_runtime(tmp_path, monkeypatch)
    events = asyncio.run(drive(runtime, "read a file"))
    assert seen.request_seen == 2  # both of the turn's requests before the snapshot
    names = [type(e).__name__ for e in events]
    assert names[-3:] == ["CheckpointSaved", "FilesChanged", "TurnEnd"]
    assert [c.turn for c in rewinds(runtime).checkpoints()] == [1]  # /undo finds the turn


def test_a_turn_stopped_before_any_change_still_gets_its_checkpoint(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_model.script.tool_use("read_file", path="a.txt").text("never read")
    runtime = make_runtime(tmp_path, monkeypatch)

    async def go() -> None:
        try:
            async for event in runtime.turn("look"):
                if isinstance(event, ToolStart):
                    raise KeyboardInterrupt  # the user stops it as its first tool starts
        except KeyboardInterrupt:
            pass
        service = rewinds(runtime)
        await until(lambda: len(service.checkpoints()) == 1, what="the stopped turn's checkpoint")
        await runtime.aclose(wait=False)

    asyncio.run(go())
    assert [c.turn for c in rewinds(runtime).checkpoints()] == [1]


def test_a_hook_started_before_the_checkpoint_waits_for_it(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config" / "agent"
    config.mkdir(parents=True)
    hook = {"command": "touch hooked.txt"}
    (config / "settings.json").write_text(json.dumps({"hooks": {"user_prompt_submit": [hook]}}))
    fake_model.script.text("done")
    seen = Taken()
    released = threading.Event()

    def held_a_while() -> bool:  # long enough for an ungated hook to have run
        released.wait(0.5)
        return bool(fake_model.requests)

    slow_take(monkeypatch, held_a_while, seen)
    runtime = make_runtime(tmp_path, monkeypatch)
    events = asyncio.run(drive(runtime, "hi"))
    assert isinstance(events[0], CheckpointSaved)
    assert (tmp_path / "hooked.txt").exists()  # the hook ran,
    assert "hooked.txt" not in seen.files  # after the snapshot
    assert seen.request_seen is False  # and the request after the hook
