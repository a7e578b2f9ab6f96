"""A turn's checkpoint is taken beside its first model request (in a new store it is several git
calls the request used to wait for), and still before anything of the turn can change the
workspace: the turn's events start with it, no tool runs before it, and a process the turn
starts before it (a user_prompt_submit hook) waits for it."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.events import CheckpointSaved, TurnEnd
from agent_cli.ext.checkpoints.records import Checkpoint
from agent_cli.ext.checkpoints.store import CheckpointStore
from tests.e2e.runtime_support import drive, make_runtime
from tests.fake_model import FakeAnthropic

pytestmark = [
    pytest.mark.usefixtures("sdk_env"),
    pytest.mark.skipif(shutil.which("git") is None, reason="checkpoints need git"),
]


class Taken:
    """What the snapshot saw: whether the model had been asked yet, and the files it holds."""

    def __init__(self) -> None:
        self.request_seen: bool | None = None
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


def test_the_first_request_goes_out_while_the_checkpoint_is_taken(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_model.script.tool_use("write_file", path="made.txt", content="new\n").text("wrote it")
    seen = Taken()

    def request_arrives() -> bool:  # the snapshot is held until the request is out
        deadline = time.monotonic() + 30
        while not fake_model.requests and time.monotonic() < deadline:
            time.sleep(0.005)
        return bool(fake_model.requests)

    slow_take(monkeypatch, request_arrives, seen)
    runtime = make_runtime(tmp_path, monkeypatch)
    events = asyncio.run(drive(runtime, "make a file"))
    assert seen.request_seen is True
    assert isinstance(events[0], CheckpointSaved)  # before any of the turn's own events
    assert "made.txt" not in seen.files  # the tool ran after the snapshot
    assert (tmp_path / "made.txt").read_text() == "new\n"
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].text == "wrote it"


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
