"""The background extension's part of `agent chat`'s status bar: how many of this user's
background sessions wait for an answer (`waiting: approval`, `question`, `plan`), from any
workspace, as `agent ps` would count them (a dead one's record is not counted). Nothing when
none does.

The registry is read at most every READ_S seconds, by a task of the chat's loop, never by a
redraw: the bar asks `text()` at every frame and gets the count last read."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from agent_cli.ext.background import registry

READ_S = 2.0


def records_folder() -> Path:
    """registry.folder(), without making it: a chat of someone who never started a background
    session leaves no folder behind."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "agent" / "background"


def waiting_count(folder: Path | None = None) -> int:
    """The sessions whose record says they wait, and whose process is still theirs."""
    found = 0
    for path in (folder or records_folder()).glob("*.json"):
        record = registry.read(path)
        if record is not None and record.state.startswith("waiting") and record.alive():
            found += 1
    return found


def label(count: int) -> str:
    if not count:
        return ""
    return "1 bg session waits" if count == 1 else f"{count} bg sessions wait"


class WaitingPart:
    """A StatusPart (the extension contract's): the count as the bar shows it."""

    def __init__(self, count: Callable[[], int] = waiting_count, every_s: float = READ_S) -> None:
        self._count, self._every_s = count, every_s
        self._text = ""
        self._task: asyncio.Task[None] | None = None

    def text(self) -> str:
        return self._text

    def watch(self, changed: Callable[[], None]) -> None:
        """Read now and every `every_s` after, in the running loop; `changed` when it changed."""
        self._task = asyncio.get_running_loop().create_task(self._poll(changed))

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _poll(self, changed: Callable[[], None]) -> None:
        while True:
            with contextlib.suppress(OSError):  # a folder gone meanwhile: read it next time
                text = label(self._count())
                if text != self._text:
                    self._text = text
                    changed()
            await asyncio.sleep(self._every_s)
