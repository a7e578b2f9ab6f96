"""The one prompt-toolkit Application of `agent chat`: non-fullscreen, alive for the whole session.

Bottom region, redrawn on events: [unfinished block + spinners | side panel] (the panel goes below
under 100 columns), an approval question when one is pending, the status bar, the input line.
Finished blocks and tool lines go to the terminal's own scrollback through `commit` (one queue,
one `run_in_terminal` per batch, so order holds). Imports only prompt_toolkit: the prompt is drawn
before the rest of the REPL is loaded, and `attach` hands it the controller when ready.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import Completer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.styles import Style

from agent_cli.ui.frames import one_frame, screen_output
from agent_cli.ui.keys import chat_bindings
from agent_cli.ui.questions import Questions

PROMPT = "you> "
FOLD_BELOW = 100  # same rule as side_panel.FOLD_BELOW (not imported: that module is heavy)
COALESCE_S = 0.1  # commits within this share one erase-print-redraw of the bottom region
EXIT_WINDOW_S = 2.0  # a second Ctrl-C on an empty prompt within this exits
PANEL_MODES = ("full", "compact", "hidden")  # F2 cycles them
STYLE = Style.from_dict({"toolbar": "reverse", "question": "bold", "prompt": "bold"})


class Controller(Protocol):
    """What the screen asks of the REPL (ui/repl.py)."""

    busy: bool

    def live(self, width: int) -> str: ...  # ANSI: the unfinished block and running spinners

    def panel(self, columns: int, rows: int, mode: str) -> str: ...  # ANSI, at most `rows`

    def toolbar(self) -> str: ...

    def submit(self, text: str) -> None: ...

    def interrupt(self) -> None: ...  # cancel the running turn

    def cycle_mode(self) -> None: ...  # the next permission mode


def side_width(columns: int) -> int:
    return 40 if columns >= 140 else 34


class ChatScreen(Questions):
    def __init__(self, history_file: Path | None, completer: Completer | None = None) -> None:
        self.controller: Controller | None = None
        self.early: list[str] = []  # sent before the controller was ready
        self.notice = ""
        self.panel_mode = PANEL_MODES[0]
        self._restoring = False
        self._frame_cache: tuple[object, tuple[str, str]] | None = None
        self._last_ctrl_c = 0.0
        self._question: tuple[str, dict[str, str], asyncio.Future[str]] | None = None
        self._line: tuple[str, asyncio.Future[str | None]] | None = None  # a typed answer
        self._commits: asyncio.Queue[str] | None = None
        history = FileHistory(str(history_file)) if history_file else InMemoryHistory()
        self.buffer = Buffer(
            multiline=True,
            history=history,
            completer=completer,
            complete_while_typing=True,
        )
        self.app: Application[None] = Application(
            layout=Layout(self._root(), focused_element=self._input),
            key_bindings=chat_bindings(self),
            style=STYLE,
            full_screen=False,
            min_redraw_interval=0.05,
            erase_when_done=True,
            output=screen_output(),
        )
        self.app.ttimeoutlen = 0.02
        # Esc is also the prefix of Alt-Enter: without this the key processor waits a whole second
        # to tell them apart. A terminal sends Alt-Enter's two bytes together, so 20 ms is plenty.
        self.app.timeoutlen = 0.02
        resize = self.app._on_resize

        def framed_resize() -> None:  # erase and redraw on resize: one frame, no blank flash
            with one_frame(self.app.output):
                resize()

        setattr(self.app, "_on_resize", framed_resize)  # noqa: B010 - a method, replaced
        if os.environ.get("AGENT_FRAME_LOG"):  # diagnostics: the height of every frame
            self.app.after_render += self._log_frame

    def _log_frame(self, app: Application[None]) -> None:
        # the rows the region's content takes (prompt-toolkit pads the region down to the
        # bottom of an empty screen with blank rows: those never reach scrollback)
        size = app.output.get_size()
        rows = app.layout.container.preferred_height(size.columns, size.rows).preferred
        with Path(os.environ["AGENT_FRAME_LOG"]).open("a", encoding="utf-8") as log:
            log.write(f"{rows} {size.rows} {size.columns}\n")

    # -- layout ------------------------------------------------------------------------------

    def columns(self) -> int:
        return self.app.output.get_size().columns

    def rows(self) -> int:
        return self.app.output.get_size().rows

    def _wide(self) -> bool:
        return self.columns() >= FOLD_BELOW

    def _panel_text(self) -> str:
        return self._frame()[1]

    def _live_text(self) -> str:
        return self._frame()[0]

    def cycle_panel(self) -> None:
        self.panel_mode = PANEL_MODES[(PANEL_MODES.index(self.panel_mode) + 1) % 3]
        self.invalidate()

    def _frame(self) -> tuple[str, str]:
        """The live tail and the panel of this frame, laid out in the rows the screen has.

        The region must stay shorter than the screen, or the terminal scrolls part of it into
        scrollback where it can no longer be erased: the input and status rows come first, then
        the reply's tail keeps a third of the rows, and the panel collapses into what is left.
        """
        size = self.app.output.get_size()
        key = (self.app.render_counter, size, self.panel_mode, self.buffer.text)
        if self._frame_cache is None or self._frame_cache[0] != key:
            self._frame_cache = (key, self._lay_out(size.columns, size.rows))
        return self._frame_cache[1]

    def _lay_out(self, columns: int, rows: int) -> tuple[str, str]:
        controller = self.controller
        if controller is None or self._restoring:
            return "", ""
        body = rows - 2 - self._input_rows() - self._question_rows()  # status row, one spare
        if body < 1:
            return "", ""
        if columns >= FOLD_BELOW:
            panel = controller.panel(columns, body, self.panel_mode)
            width = columns - side_width(columns) - 2 if panel else columns
            return _tail(controller.live(width), body), panel
        live = controller.live(columns)
        keep = min(_count(live), max(rows // 3, 1))
        panel = controller.panel(columns, body - keep, self.panel_mode)
        return _tail(live, body - _count(panel)), panel

    def _root(self) -> FloatContainer:
        has_panel = Condition(lambda: bool(self._panel_text()))
        has_live = Condition(lambda: bool(self._live_text()))
        wide = Condition(self._wide)
        live = Window(
            FormattedTextControl(lambda: ANSI(self._live_text())),
            dont_extend_height=True,
            wrap_lines=False,
        )
        panel = FormattedTextControl(lambda: ANSI(self._panel_text()))
        beside = ConditionalContainer(self._beside(panel), filter=wide & has_panel)
        body = HSplit(
            [
                ConditionalContainer(VSplit([live, beside]), filter=has_live | (has_panel & wide)),
                ConditionalContainer(
                    Window(panel, dont_extend_height=True), filter=has_panel & ~wide
                ),
                ConditionalContainer(
                    Window(
                        FormattedTextControl(self._question_text),
                        style="class:question",
                        height=lambda: self._question_rows(),
                        wrap_lines=True,
                    ),
                    filter=Condition(lambda: self.asking or self._line is not None),
                ),
                Window(FormattedTextControl(self._toolbar), height=1, style="class:toolbar"),
                self._input_row(),
            ]
        )
        menu = Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8))
        return FloatContainer(body, floats=[menu])

    def _beside(self, panel: FormattedTextControl) -> VSplit:
        # the coloured panel draws its own border; the plain one gets a rule beside it
        plain = Condition(lambda: bool(os.environ.get("NO_COLOR")))
        return VSplit(
            [
                # nothing in the region may extend: a padded region is what reaches scrollback
                Window(width=1, dont_extend_height=True),
                ConditionalContainer(
                    Window(char="|", width=1, dont_extend_height=True), filter=plain
                ),
                Window(panel, width=lambda: side_width(self.columns()), dont_extend_height=True),
            ]
        )

    def _input_row(self) -> VSplit:
        self._input = Window(BufferControl(self.buffer), height=self._input_height, wrap_lines=True)
        prompt = Window(
            FormattedTextControl([("class:prompt", PROMPT)]),
            width=len(PROMPT),
            dont_extend_height=True,
        )
        return VSplit([prompt, self._input])

    def _input_height(self) -> Dimension:
        return Dimension.exact(self._input_rows())

    def _input_rows(self) -> int:
        # the text's lines, up to a quarter of the screen (a long paste scrolls inside); room
        # below the cursor for the completion menu while it is open
        width = max(self.columns() - len(PROMPT), 1)
        rows = sum(1 + len(line) // width for line in self.buffer.document.lines)
        cap = max(self.rows() // 4, 1)
        if self.buffer.complete_state:
            return min(max(rows, 9), max(cap, self.rows() // 3))
        return min(rows, cap)

    def _toolbar(self) -> StyleAndTextTuples:
        text = self.controller.toolbar() if self.controller else "starting…"
        if self.notice:
            text = f"{text}  ·  {self.notice}"
        return [("class:toolbar", " " + text)]


    # -- keys --------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return bool(self.controller and self.controller.busy)

    def send(self) -> None:
        text = self.buffer.text
        if self._line is not None and not self._line[1].done():
            self.buffer.reset()
            self._line[1].set_result(text)
            return
        if not text.strip():
            return
        self.buffer.append_to_history()
        self.buffer.reset()
        self.notice = ""
        if self.controller is None:
            self.early.append(text)
        else:
            self.controller.submit(text)

    def on_ctrl_c(self) -> None:
        busy = self.controller is not None and self.controller.busy
        if self._line is not None and not self._line[1].done():
            self._line[1].set_result(None)
        if self.answer("deny") or busy:
            self.interrupt()
        elif self.buffer.text:
            self.buffer.reset()
        elif time.monotonic() - self._last_ctrl_c < EXIT_WINDOW_S:
            self.exit()
        else:
            self._last_ctrl_c = time.monotonic()
            self.notice = "press Ctrl-C again to exit"
            self.invalidate()
            asyncio.get_running_loop().call_later(EXIT_WINDOW_S, self._notice_expired)

    def _notice_expired(self) -> None:
        if time.monotonic() - self._last_ctrl_c >= EXIT_WINDOW_S - 0.01:
            self.notice = ""
            self.invalidate()

    def interrupt(self) -> None:
        if self.controller is not None:
            self.controller.interrupt()

    def cycle_mode(self) -> None:
        if self.controller is not None:
            self.controller.cycle_mode()
            self.invalidate()

    def restore_input(self, text: str) -> None:
        """Put text back in the input box, before whatever is being typed."""
        typed = self.buffer.text
        self.buffer.text = text + ("\n" + typed if typed else "")
        self.buffer.cursor_position = len(self.buffer.text)
        self.invalidate()

    # -- output ------------------------------------------------------------------------------

    def commit(self, text: str) -> None:
        """Print above the live region, into scrollback, after everything committed before."""
        if not self.app.is_running:
            _write(text + "\n")
            return
        if self._commits is None:
            self._commits = asyncio.Queue()
        self._commits.put_nowait(text)

    async def _committer(self) -> None:
        if self._commits is None:
            self._commits = asyncio.Queue()
        while True:
            batch = [await self._commits.get()]
            await asyncio.sleep(COALESCE_S)  # blocks that arrive together: one redraw
            while not self._commits.empty():
                batch.append(self._commits.get_nowait())
            with one_frame(self.app.output):  # erase, print, redraw: shown as one frame
                await run_in_terminal(lambda b=batch: _write("\n".join(b) + "\n"))  # type: ignore[misc]
            for _ in batch:
                self._commits.task_done()

    async def flush(self) -> None:
        if self._commits is not None:
            await self._commits.join()

    def invalidate(self) -> None:
        self.app.invalidate()

    def attach(self, controller: Controller) -> None:
        self.controller = controller
        self._restoring = True  # a resumed conversation reaches scrollback before the panel
        self.app.create_background_task(self._restored())
        for text in self.early:
            controller.submit(text)
        self.early.clear()
        self.invalidate()

    async def _restored(self) -> None:
        await self.flush()
        self._restoring = False
        self.invalidate()

    def exit(self) -> None:
        """Leave once everything committed so far is on screen."""
        if self.app.is_running:
            self.app.create_background_task(self._exit())

    async def _exit(self) -> None:
        await self.flush()
        if self.app.is_running and self.app.future is not None and not self.app.future.done():
            self.app.exit()

    async def run(self, boot: Callable[[], object]) -> None:
        """Draw, then `boot` (loads the REPL and calls `attach`) right after the first frame."""

        def pre_run() -> None:
            self.app.create_background_task(self._committer())
            asyncio.get_running_loop().call_soon(boot)

        await self.app.run_async(pre_run=pre_run)


def _count(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def _tail(text: str, rows: int) -> str:
    if rows < 1:
        return ""
    return "\n".join(text.split("\n")[-rows:]) if text else ""


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
