"""Scrollback writes of the chat screen: one queue, so order holds; commits that arrive
together (within COALESCE_S) share one erase-print-redraw of the bottom region, in one frame."""

from __future__ import annotations

import asyncio
import contextlib
import sys

from prompt_toolkit.application import Application, run_in_terminal

from agent_cli.ui.frames import one_frame

COALESCE_S = 0.1


class Commits:
    def __init__(self, app: Application[None]) -> None:
        self.app = app
        self._queue: asyncio.Queue[str] | None = None
        self._hurry = asyncio.Event()  # the next batch goes out without waiting for more

    def commit(self, text: str) -> None:
        if not self.app.is_running:
            write(text + "\n")
            return
        if self._queue is None:
            self._queue = asyncio.Queue()
        self._queue.put_nowait(text)

    async def run(self) -> None:
        if self._queue is None:
            self._queue = asyncio.Queue()
        while True:
            batch = [await self._queue.get()]
            with contextlib.suppress(TimeoutError):  # blocks that arrive together: one redraw
                await asyncio.wait_for(self._hurry.wait(), COALESCE_S)
            self._hurry.clear()
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            with one_frame(self.app.output):  # erase, print, redraw: shown as one frame
                await run_in_terminal(lambda b=batch: write("\n".join(b) + "\n"))  # type: ignore[misc]
            for _ in batch:
                self._queue.task_done()

    def hurry(self) -> None:
        """What is committed now is shown now (a stopped turn: the user waits for the prompt)."""
        self._hurry.set()

    async def flush(self) -> None:
        if self._queue is not None:
            await self._queue.join()


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
