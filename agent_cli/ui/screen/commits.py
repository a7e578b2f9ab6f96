"""Scrollback writes of the chat screen: one queue, so order holds; commits that arrive
together (within COALESCE_S) share one frame.

A commit opens rows above the bottom region and is written there, so the region stays drawn
and prompt-toolkit's next diff sends only the cells that changed (ui/screen/reflow.py: `open_rows`);
a commit taller than the screen is written over the region, then diffed against its last frame
shifted by those rows. While another program has the terminal,
prompt-toolkit's `run_in_terminal` erases the region, prints and draws it again.

A change of columns has the region erased from where the terminal now holds its top (`relay`):
what it held before `agent chat` and every committed line stay as the terminal keeps them.
Where rows are re-wrapped (tmux, most emulators) the top is as many rows above the cursor as
the region's rows now take (ui/screen/region_rows.py). A frame or a commit drawn at another width
than it was laid out for (tmux says a new size up to 250 ms late, ui/screen/width_probe.py) is
counted from the last frame drawn where it was laid out: the rows the frames since moved the
cursor and the rows the commits since took at the new width, which are then written again."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.data_structures import Point, Size

from agent_cli.ui.screen import region_rows
from agent_cli.ui.screen.anchor import Gap
from agent_cli.ui.screen.frames import FramedOutput, fix_size, fixed_size, one_frame
from agent_cli.ui.screen.reflow import (
    commit_bytes,
    erase_region,
    open_rows,
    shift_up,
    terminal_reflows,
    write_again,
)
from agent_cli.ui.screen.region_rows import region_of, rows_above
from agent_cli.ui.screen.width_probe import LOST_S, WidthProbes

if TYPE_CHECKING:
    from agent_cli.ui.screen.anchor import BottomAnchor

COALESCE_S = 0.1
KEPT_LINES = 10_000  # what a re-lay that lost track writes again (`relay`): terminals keep less
ASK_AGAIN_S = 0.005  # how often a commit looks whether a re-lay still waits for answers


class Commits:
    def __init__(
        self,
        app: Application[None],
        anchor: BottomAnchor | None = None,
        idle: Callable[[], bool] = lambda: True,  # no turn runs: the region keeps its height
        gap: Gap | None = None,
    ) -> None:
        self.app, self.anchor, self.idle = app, anchor, idle
        self.gap = gap or Gap()
        self._queue: asyncio.Queue[str] | None = None
        self._hurry = asyncio.Event()  # the next batch goes out without waiting for more
        # committed but not on screen yet: the screen keeps showing its last frame meanwhile,
        # which still holds that text, so it never vanishes for the coalescing moment
        self.unwritten = 0
        self._written: deque[tuple[int, str]] = deque()  # (lines, text), oldest first
        self._written_lines = 0
        # a change of columns waits for the terminal to say where its last frames were drawn:
        # no frame is drawn and nothing committed meanwhile
        self.waiting = False
        self._resized = False
        self._stranded = False  # blank rows kept at the screen's top when it was resized
        self._kept_top = False  # the same, a turn running or not
        region_rows.install()
        render = app.renderer.render

        def render_unless_waiting(*args: Any, **kwargs: Any) -> None:
            if not self.waiting:
                render(*args, **kwargs)

        setattr(app.renderer, "render", render_unless_waiting)  # noqa: B010 - wrapped
        clear = app.renderer.clear

        def clear_and_forget() -> None:  # Ctrl-L (prompt-toolkit's binding)
            clear()
            self.gap.reset()
            if anchor is not None:
                anchor.cleared()

        setattr(app.renderer, "clear", clear_and_forget)  # noqa: B010 - wrapped

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
            await self._settled()
            self.unwritten -= len(batch)  # the redraw that writes them lays out afresh
            if not self._over_region(text):
                if self.anchor is not None:  # printed under the erased region: blank rows first
                    self.anchor.make_room(self.app, self.anchor.filler)
                self._remember(text)
                self.gap.took(commit_bytes(text, self.app.output.get_size().columns)[1])
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
        gap = self.gap.took(rows)  # written into the region's blank top rows first
        cursor, last = renderer._cursor_pos, renderer._last_screen
        height = last.height if last is not None else size.rows
        opens = last is not None and not gap and rows + height < size.rows
        taken = opens and self._shrinks(height)  # written over the rows the region gives up
        if self.anchor is not None:  # the rows it adds: blank ones at the screen's top go first
            self.anchor.make_room(self.app, max(rows - height, 0) if taken else rows - gap)
        if last is not None and opens and not taken:
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

    def _shrinks(self, height: int) -> bool:
        """Whether the frame after this commit has fewer rows than the last one's `height`:
        its text left the live area (a turn's last block). Written into rows opened above the
        region, the commit would push as many rows up, and the region, shorter, be kept on the
        screen's last rows by blank rows inserted at the screen's top (ui/screen/anchor.py:
        `shrunk`), amid the conversation (a blank row inside the last reply's code block).
        Written over the region instead, it takes the rows the region gives up, and only those
        it adds below the region's last row take the blank rows at the screen's top: taking
        more would leave blank rows under the region, which `shrunk` takes for the region's."""
        size = self.app.output.get_size()
        self.app.render_counter += 1  # laid out afresh: the layout's caches hold for a frame
        return (
            self.app.layout.container.preferred_height(size.columns, size.rows).preferred < height
        )

    def on_resize(self, resize: Callable[[], None]) -> None:
        """The terminal was resized (prompt-toolkit's handler is `resize`): in one frame, the
        region re-laid where the terminal put it, or erased where it was (rows only) and
        drawn anew, unless a frame since was drawn at the new size already."""
        output = self.app.output
        if self.anchor is not None:
            inside = self.anchor.filler > 0 and not self.anchor.leading
            self._stranded = self._stranded or (inside and not self.idle())
            self._kept_top = self._kept_top or inside
            self.anchor.forget()
        with one_frame(output):
            fix_size(output)
            drawn = self.app.renderer._last_size == output.get_size()  # by a frame since
            relaid = self.relay(resized=True)
            if not self.waiting and (relaid or not drawn):
                resize()

    def relay(self, resized: bool = False) -> bool:
        """Re-lay the region if the columns changed (or the terminal said it was `resized`
        and drew a frame at another width); whether it is to be drawn anew.

        Its top is where the terminal holds it now: above the cursor by the rows the region
        takes at the new width, counted from the last frame drawn where it was laid out, plus
        the rows the cursor moved since and those the commits since took (written again).
        While a frame has yet to say where it was drawn, nothing is re-laid (`waiting`)."""
        renderer, probes = self.app.renderer, self._probes()
        last, size = renderer._last_size, self.app.output.get_size()
        self._resized = self._resized or resized
        changed = last is not None and last.columns != size.columns
        untrusted = probes is not None and probes.drawn_elsewhere and self._resized
        if last is None or not (changed or untrusted):
            pushed = last is not None and self._pushed_by_fewer_rows(last, size)
            self._resized = self._stranded = self._kept_top = False
            if pushed:
                self._write_again()
            return pushed
        if probes is not None and probes.pending():
            self._wait()
            return False
        if probes is not None and probes.drawn_elsewhere and probes.lost_track(size.columns):
            write_again(self.app, [text for _, text in self._written])  # the trade-off: README
            self.waiting = self._resized = self._stranded = self._kept_top = False
            probes.relaid()
            return True
        if probes is not None and probes.drawn_elsewhere:
            region, texts = probes.since_reference()
        else:
            region, texts = region_of(renderer, last.columns), []
        taken = sum(commit_bytes(text, size.columns)[1] for text in texts)
        top = rows_above(region, size.columns, terminal_reflows()) - region.cursor[0]
        up = max(top + taken + renderer._cursor_pos.y, 0)
        self.gap.reset()  # the region's own rows, counted in `up`: erased with it
        self._erase(up, texts, taken)
        self.waiting = self._resized = self._stranded = self._kept_top = False
        if probes is not None:
            probes.relaid()
        return True

    def _pushed_by_fewer_rows(self, last: Size, size: Size) -> bool:
        """Fewer rows, as many columns: tmux drops the rows under the cursor, then pushes the
        screen's top rows into scrollback. Whether it pushed a row of the region there (its
        rows down to the cursor's no longer fit: blank rows kept at its top, ui/screen/anchor.py:
        `Gap`, and then the live area's own) or blank rows kept at the screen's top amid the
        conversation (`filler`): a blank run or a piece of the panel amid the conversation
        (9 blank rows at 140x45 -> 100x45 -> 100x30 early in a reply, and the panel's top)."""
        if size.rows >= last.rows or self.app.renderer._last_screen is None:
            return False
        anchor = self.anchor
        below = anchor.below if anchor is not None and anchor.below is not None else 0
        kept = self._kept_top or (anchor is not None and anchor.filler > 0 and not anchor.leading)
        fewer = last.rows - size.rows
        return self.app.renderer._cursor_pos.y + 1 > size.rows or (kept and fewer > below)

    def _erase(self, up: int, texts: list[str], taken: int) -> None:
        """Erase the region from its top, `up` rows above the cursor, with the `texts`
        committed since its last frame (`taken` rows), to be drawn anew below them."""
        size = self.app.output.get_size()
        height = self.app.layout.container.preferred_height(size.columns, size.rows).preferred
        turn = not self.idle()  # commits to come fill the rows it frees (ui/screen/anchor.py: Gap)
        over = self._over(up)  # its rows re-wrapped past the screen's top, into scrollback
        if self._stranded or over > 0:
            self._write_again()
            return
        down = self._down(up + 1 - min(height, size.rows) - taken)
        erase_region(self.app, up, texts, 0 if turn else down)
        self.gap.keep(min(height, size.rows) + down if turn else 0)

    def _write_again(self) -> None:
        """The screen and scrollback cleared, the session's output written again (README's
        trade-off), the region drawn whole below it: the rows under it not known yet."""
        self.gap.reset()
        write_again(self.app, [text for _, text in self._written])
        if self.anchor is not None:
            self.anchor.below = None

    def _over(self, up: int) -> int:
        """Rows of the region that the re-wrap put past the screen's top, its top `up` rows
        above the cursor: tmux keeps the last rows of its re-wrapped lines on screen, the
        blank rows under the region among them (fewer by the rows a lower screen took).

        A narrowing to less than half the columns re-wraps each of the region's full-width rows
        (the panel's border, the status bar) into three or more: at 80x24 its 12 rows into 34,
        at 140x45 -> 60x24 its 22 into 64. No layout that keeps the panel fits that, and what
        went into scrollback (the reply's tail, pieces of the panel) no program can erase
        there. So the scrollback is cleared and the session's output written again
        (`write_again`): the shell's lines from before `agent chat` go with it (README). The
        same when only blank rows of its top (`Gap`) went there: a second narrowing before
        commits fill them left a blank run amid the conversation (13 rows after 140 -> 100 -> 80
        columns early in a reply, 2 with 3 s between), which no later write takes away. And
        the same when a turn runs and the region had just got shorter (`_stranded`): the blank
        rows kept at the screen's top then (ui/screen/anchor.py: `filler`) sit amid the
        conversation, where a narrowing pushes them into scrollback and a widening brings rows
        back above them."""
        anchor, size, last = self.anchor, self.app.output.get_size(), self.app.renderer._last_size
        below = anchor.below if anchor is not None and anchor.below is not None else 0
        if last is not None and last.rows > size.rows:  # a lower screen drops them first
            below = max(below - (last.rows - size.rows), 0)
        return max(up + below + 1 - size.rows, 0)

    def _down(self, freed: int) -> int:
        """Rows left blank above the re-laid region, of the `freed` ones it no longer takes.

        Blank rows left above it stay between the conversation and the region (and piled
        up with each change of columns: 35 after ten at 80x24); the next turn's first lines
        went under them, a blank run amid the conversation. Between turns they go under the
        region instead, the conversation's last line kept right above it, and the next turn's
        lines take them as the region moves down. They went there only as far as a later
        halving of the width still found room above the cursor for the region's re-wrapped
        rows, but that saved nothing: the narrowing that would push its top into scrollback
        pushed the blank rows left above it there instead, unseen (`_over` counts those under
        it, and has the session written again). Where the rows under it are not known (no
        answer from the terminal, or a change of rows), or while a turn runs (its live area
        grows down into them and a narrowing then pushes its top into scrollback), it ends
        where it ended before."""
        anchor, size, last = self.anchor, self.app.output.get_size(), self.app.renderer._last_size
        if anchor is None or anchor.below is None or last is None:
            return max(freed, 0)
        below = anchor.below
        if last.rows != size.rows:
            anchor.below = None
            return max(freed, 0)
        under = max(freed, 0) if self.idle() else 0
        anchor.below = max(below + under + min(freed, 0), 0)
        return max(freed, 0) - under

    def _wait(self) -> None:
        if self.waiting:
            return
        self.waiting = True
        with contextlib.suppress(RuntimeError):  # an answer lost: looked at again after LOST_S
            asyncio.get_running_loop().call_later(LOST_S + 0.05, self.app.invalidate)

    def answered(self) -> None:
        """A cursor report arrived: a re-lay waiting for it is done at the next frame."""
        probes = self._probes()
        if self.waiting and (probes is None or not probes.pending()):
            self.app.invalidate()

    async def _settled(self) -> None:
        """Until no re-lay waits for the terminal's answers (at most LOST_S): a commit placed
        by the old layout would land inside the re-wrapped region."""
        deadline = time.monotonic() + LOST_S + 0.1
        while time.monotonic() < deadline and not self.app._running_in_terminal:
            with fixed_size(self.app.output):
                self.relay()
            if not self.waiting:
                return
            await asyncio.sleep(ASK_AGAIN_S)

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
        probes = self._probes()
        if probes is not None:
            probes.committed(text)

    def hurry(self) -> None:
        """What is committed now is shown now (a stopped turn: the user waits for the prompt)."""
        self._hurry.set()

    async def flush(self) -> None:
        if self._queue is not None:
            await self._queue.join()


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
