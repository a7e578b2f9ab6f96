"""Scrollback writes of the chat screen: one queue, so order holds; commits that arrive
together (within COALESCE_S) share one frame.

A commit opens rows above the bottom region and is written there, so the region stays drawn
and prompt-toolkit's next diff sends only the cells that changed (ui/screen/reflow.py: `open_rows`);
a commit taller than the screen is written over the region, then diffed against its last frame
shifted by those rows. While another program has the terminal,
prompt-toolkit's `run_in_terminal` erases the region, prints and draws it again.

A change of columns on a terminal that re-wraps its rows, or a frame the terminal drew at
another width than it was laid out for (ui/screen/width_probe.py), has everything committed written
again from the top (`relay`); on a terminal that cuts rows the region is erased in place."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections import deque
from collections.abc import Callable

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.data_structures import Point

from agent_cli.ui.screen.frames import FramedOutput, fixed_size, one_frame
from agent_cli.ui.screen.reflow import (
    commit_bytes,
    open_rows,
    relay_after_resize,
    shift_up,
    terminal_reflows,
    write_again,
)
from agent_cli.ui.screen.width_probe import WidthProbes

COALESCE_S = 0.1
KEPT_LINES = 10_000  # what a resize writes again (`relay`): a terminal keeps no more


class Commits:
    def __init__(self, app: Application[None], on_relay: Callable[[], None]) -> None:
        self.app = app
        self.on_relay = on_relay  # the region was placed anew: the bottom anchor learns its row
        self._queue: asyncio.Queue[str] | None = None
        self._hurry = asyncio.Event()  # the next batch goes out without waiting for more
        self._written: deque[tuple[int, str]] = deque()  # (lines, text), oldest first
        self._written_lines = 0
        # committed but not on screen yet: the screen keeps showing its last frame meanwhile,
        # which still holds that text, so it never vanishes for the coalescing moment
        self.unwritten = 0

    def commit(self, text: str) -> None:
        if not self.app.is_running:
            self._remember(text)
            write(text + "\n")
            return
        if self._queue is None:
            self._queue = asyncio.Queue()
        self.unwritten += 1
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
            text = "\n".join(batch)
            self.unwritten -= len(batch)  # the redraw that writes them lays out afresh
            if not self._over_region(text):
                self._remember(text)
                with one_frame(self.app.output):  # erase, print, redraw: shown as one frame
                    await run_in_terminal(lambda t=text: write(t + "\n"))  # type: ignore[misc]
            for _ in batch:
                self._queue.task_done()

    def _over_region(self, text: str) -> bool:
        """Write `text` where the region starts and redraw only what changed; False while
        another program has the terminal (prompt-toolkit's `run_in_terminal`)."""
        if self.app._running_in_terminal:
            return False
        with fixed_size(self.app.output):  # the commit and its redraw: laid out for one size
            self._write_over_region(text)
        return True

    def _write_over_region(self, text: str) -> None:
        renderer, output = self.app.renderer, self.app.output
        self.relay()  # a resize not yet handled: the region's top moved
        size = output.get_size()
        data, rows = commit_bytes(text, size.columns)
        cursor, last = renderer._cursor_pos, renderer._last_screen
        if last is not None and rows + last.height < size.rows:
            output.write_raw(open_rows(cursor, last.height, rows))  # the region stays drawn
        else:  # the old region is written over and the rest diffed against it shifted
            output.cursor_backward(cursor.x)
            output.cursor_up(cursor.y)
            if last is not None:
                renderer._last_screen = shift_up(last, rows)
        output.write_raw(data)  # buffered: flushed with the redraw below, as one frame
        self._remember(text)
        renderer._cursor_pos = Point(x=0, y=0)
        self.app._redraw()

    def relay(self, resized: bool = False) -> bool:
        """Re-lay the region if the columns changed (or the terminal said it was `resized`
        and drew a frame at another width); whether it is to be drawn anew.

        A terminal that re-wraps its rows splits or joins the region's rows by how wide it
        keeps each (as wide as it ever was, not as drawn), and a commit placed by the old
        width lands elsewhere: the screen cannot know where anything went, so everything is
        written again. One that cuts rows leaves them where they were: the region is erased
        in place (ui/screen/reflow.py), unless a probe found a frame drawn at another width."""
        renderer, probes = self.app.renderer, self._probes()
        last, size = renderer._last_size, self.app.output.get_size()
        changed = last is not None and last.columns != size.columns
        untrusted = probes is not None and (changed or resized) and not probes.trusted()
        if not ((changed and terminal_reflows()) or untrusted):
            return relay_after_resize(self.app)
        write_again(self.app, [text for _, text in self._written])
        if probes is not None:
            probes.written_again()
        self.on_relay()
        return True

    def _probes(self) -> WidthProbes | None:
        output = self.app.output
        if isinstance(output, FramedOutput) and output.probes.enabled:
            return output.probes
        return None

    def _remember(self, text: str) -> None:
        lines = text.count("\n") + 1
        self._written.append((lines, text))
        self._written_lines += lines
        while self._written_lines > KEPT_LINES and len(self._written) > 1:
            self._written_lines -= self._written.popleft()[0]

    def hurry(self) -> None:
        """What is committed now is shown now (a stopped turn: the user waits for the prompt)."""
        self._hurry.set()

    async def flush(self) -> None:
        if self._queue is not None:
            await self._queue.join()


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
