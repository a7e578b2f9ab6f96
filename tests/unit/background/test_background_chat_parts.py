"""The background extension in `agent chat`, without a chat: the status bar's count is of this
user's sessions that wait for an answer and still live (as `agent ps` judges them), nothing
when none does and no registry folder made for it; it is read by a task every few seconds, not
by a redraw, and the bar is told only when it changed. `/bg` with no prompt carries on with the
last thing the user typed, and refuses, launching nothing, when there is none or while a turn
runs."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agent_cli.core.errors import UsageError
from agent_cli.core.markers import USER_INTERRUPTED
from agent_cli.ext.background import EXTENSION, registry
from agent_cli.ext.background.chat import last_request
from agent_cli.ext.background.waiting_part import WaitingPart, label, waiting_count


def test_the_count_is_of_live_sessions_that_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert waiting_count() == 0
    assert not (tmp_path / "agent").exists()  # a chat of someone with none leaves no folder
    folder = registry.folder()
    me, started = os.getpid(), registry.process_start(os.getpid())
    alive: dict[str, Any] = {"pid": me, "process_start": started}
    sessions: list[tuple[str, str, dict[str, Any]]] = [
        ("asks", "waiting: approval", alive),
        ("plans", "waiting: plan", alive),
        ("works", "working", alive),
        ("killed", "waiting: question", {"pid": 2**22 + 7}),  # its process is gone
        ("ended", "done", alive),
    ]
    for name, state, process in sessions:
        registry.update(folder / f"{name}.json", name=name, state=state, **process)
    assert waiting_count() == 2
    assert label(2) == "2 bg sessions wait"
    assert label(1) == "1 bg session waits"
    assert label(0) == ""  # nothing in the bar


def test_the_part_reads_in_its_task_and_says_only_a_change():
    counts = iter([0, 0, 1, 1, 2, 0])
    reads: list[int] = []

    def count() -> int:
        reads.append(1)
        return next(counts, 0)

    changes: list[str] = []
    part = WaitingPart(count, every_s=0)

    async def watch() -> None:
        part.watch(lambda: changes.append(part.text()))
        while len(reads) < 6:
            await asyncio.sleep(0)
        part.close()

    assert part.text() == ""
    assert not reads  # asking for the text read nothing
    asyncio.run(watch())
    assert changes == ["1 bg session waits", "2 bg sessions wait", ""]


def text(words: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": words}]}


def test_the_last_request_is_the_last_thing_typed_not_a_tools_result():
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    messages = [
        text("fix the login bug"),
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x"}]},
        {"role": "user", "content": [result]},
        {"role": "assistant", "content": [{"type": "text", "text": "fixed"}]},
    ]
    assert last_request(messages) == "fix the login bug"
    assert last_request([*messages, {"role": "user", "content": "and the docs"}]) == "and the docs"
    assert last_request(messages[1:]) is None
    stopped = {"role": "user", "content": [result, {"type": "text", "text": USER_INTERRUPTED}]}
    assert last_request([*messages, stopped, text(USER_INTERRUPTED)]) == "fix the login bug"


def test_bg_launches_nothing_with_nothing_to_carry_on_or_while_a_turn_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    (command,) = [c for c in EXTENSION.slash_commands if c.name == "/bg"]
    runtime = SimpleNamespace(session=SimpleNamespace(messages=[], id="s-1"))
    said: list[str] = []
    front = SimpleNamespace(
        runtime=runtime, busy=False, say=lambda text, style="": said.append(text)
    )
    port = SimpleNamespace(front=front)
    with pytest.raises(UsageError, match="nothing to carry on"):
        command.run(port, "  ")
    front.busy = True  # a turn runs: its fork would lack it
    command.run(port, "write the docs")
    assert said == ["A turn is running: wait for it or stop it (Esc), then /bg carries it on."]
    assert not (tmp_path / "agent").exists()


class BrokenStatusPart:
    def text(self) -> str:
        raise RuntimeError("no")

    def watch(self, changed: Callable[[], None]) -> None:
        raise RuntimeError("no")

    def close(self) -> None:
        pass


def test_the_bar_draws_the_part_after_the_mode_and_a_broken_part_is_one_word():
    from agent_cli.ui.screen.side_panel import PanelState
    from agent_cli.ui.status_bar import StatusBar

    waiting = WaitingPart(lambda: 2, every_s=60)
    runtime = SimpleNamespace(
        parts={"status_parts": [waiting, BrokenStatusPart()]}.get,
        port=lambda name: None,
        extension=lambda name: None,
        session=SimpleNamespace(model="claude-fake", title=""),
        options=SimpleNamespace(workspace=Path("/w")),
        permission_mode="default",
    )
    redraws: list[str] = []
    screen = SimpleNamespace(ping=lambda text: None, invalidate=lambda: redraws.append("frame"))

    async def drawn() -> str:
        bar = StatusBar(runtime, PanelState, screen)  # type: ignore[arg-type]
        bar.start()  # the broken part's watch fails alone
        while not redraws:
            await asyncio.sleep(0)
        text = bar.text(busy=False, queued=0, width=200)
        await bar.aclose()
        return text

    parts = asyncio.run(drawn()).split("  ·  ")
    assert parts[:3] == ["mode default", "2 bg sessions wait", "failed: RuntimeError"]
