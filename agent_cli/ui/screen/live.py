"""The one prompt-toolkit Application of `agent chat`: non-fullscreen, alive for the whole session.

Bottom region: [open block + spinners | side panel (below under 100 columns)], a question, the
status bar, the input. Finished blocks go to the scrollback through `commit` (screen/commits.py).
Imports only prompt_toolkit, so the prompt draws first; `attach` hands it the controller later."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.application import Application
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
from prompt_toolkit.widgets import SearchToolbar

from agent_cli.ui.dialogs.region import Dialogs
from agent_cli.ui.input.keys import chat_bindings
from agent_cli.ui.input.screen_jobs import JobKeys
from agent_cli.ui.input.screen_keys import KeyActions
from agent_cli.ui.screen.anchor import Gap
from agent_cli.ui.screen.commits import Commits
from agent_cli.ui.screen.contract import Controller
from agent_cli.ui.screen.cursor_answers import anchor_asking, route_answer
from agent_cli.ui.screen.frames import FramedOutput, fix_size, log_frame, screen_output
from agent_cli.ui.screen.input_box import count_line, input_rows
from agent_cli.ui.screen.picker import Picker
from agent_cli.ui.screen.question import ASKED, QuestionView
from agent_cli.ui.screen.reflow import SteadyWindow, fit_region
from agent_cli.ui.screen.rows import FOLD_BELOW, lay_out, side_width
from agent_cli.ui.screen.status_fit import SEPARATOR

PROMPT = "you> "
PICKING = "pick one above · Esc cancels"
DIALOG = "answer the question above"  # the dialog's own line says what Esc does there
PANEL_MODES = ("full", "compact", "hidden")  # F2 cycles them
STYLE = Style.from_dict(
    {
        "toolbar": "reverse",
        "question": "bold",
        "prompt": "bold",
        "picked": "reverse",
        "count": "italic",
    }
)


class ChatScreen(KeyActions, JobKeys):
    def __init__(self, history_file: Path | None, completer: Completer | None = None) -> None:
        self.controller: Controller | None = None
        self.early: list[str] = []  # sent before the controller was ready
        self.notice = ""
        self.panel_mode = PANEL_MODES[0]
        self._restoring = False
        # (render counter, size, panel mode, input text) -> (live tail, panel)
        self._frame_cache: tuple[tuple[object, ...], tuple[str, str]] | None = None
        self._last_ctrl_c = 0.0
        self.question = QuestionView(self.invalidate, self.columns, self.rows)
        self.picker = Picker(self.invalidate, self.rows)
        cancel = lambda: self.question.answer_line(None)  # noqa: E731
        self.dialogs = Dialogs(self.invalidate, self.columns, self.rows, cancel)  # the model's
        self.history_search = SearchToolbar(ignore_case=True)
        history = FileHistory(str(history_file)) if history_file else InMemoryHistory()
        self.buffer = Buffer(
            multiline=True, history=history, completer=completer, complete_while_typing=True
        )
        self.gap = Gap()
        self.app: Application[None] = Application(
            layout=Layout(self._root(), focused_element=self._input),
            key_bindings=chat_bindings(self),
            style=STYLE,
            full_screen=False,
            min_redraw_interval=0.1,  # at most 10 frames a second: each costs its cursor moves
            erase_when_done=True,
            output=screen_output(),
        )
        self.anchor = anchor_asking(self.app)  # room above the region for a resize to reflow
        idle = lambda: not (self.controller and self.controller.busy)  # noqa: E731
        self.commits = Commits(self.app, self.anchor, idle, self.gap)
        self.app.after_render += self.anchor.after_render
        # Esc stops a turn at once: a terminal sends an escape sequence (and Alt-Enter's two bytes)
        # in one write, so 20 ms tells a lone Esc from one; once the reader has seen it alone, the
        # key processor need not wait again for an Enter (its default: a whole second).
        self.app.ttimeoutlen, self.app.timeoutlen = 0.02, 0
        resize = self.app._on_resize  # re-laid where the terminal put the region: one frame
        setattr(self.app, "_on_resize", lambda: self.commits.on_resize(resize))  # noqa: B010
        self.app.before_render += self._before_frame
        if os.environ.get("AGENT_FRAME_LOG"):  # diagnostics: the height of every frame
            self.app.after_render += log_frame

    def _before_frame(self, app: Application[None]) -> None:
        fix_size(app.output)
        self.commits.relay()  # a frame drawn before the resize is noticed re-lays it too
        turn = bool(self.controller and self.controller.busy)
        self.gap.hold(app, turn, self.anchor.at_bottom and not self.anchor.moves)
        self.gap.fit(app)
        fit_region(app, self.anchor)

    # -- layout ------------------------------------------------------------------------------

    def columns(self) -> int:
        return self.app.output.get_size().columns

    def rows(self) -> int:
        return self.app.output.get_size().rows

    def _panel_text(self) -> str:
        return self._frame()[1]

    def _live_text(self) -> str:
        return self._frame()[0]

    def cycle_panel(self) -> None:
        self.panel_mode = PANEL_MODES[(PANEL_MODES.index(self.panel_mode) + 1) % 3]
        self.invalidate()

    def _frame(self) -> tuple[str, str]:
        """The live tail and the panel of this frame, laid out in the rows the screen has
        (ui/screen/rows.py: `lay_out`)."""
        size = self.app.output.get_size()
        key = (self.app.render_counter, size, self.panel_mode, self.buffer.text)
        cached = self._frame_cache
        # while a commit waits to be written above, what it holds stays in view here
        if cached is not None and (
            cached[0] == key or (self.commits.unwritten and cached[0][1:] == key[1:])
        ):
            return cached[1]
        controller = None if self._restoring else self.controller
        searching = 1 if self.app.layout.is_searching else 0  # the Ctrl-R search row
        asking = self.question.rows() + self.picker.rows() + self.dialogs.rows()
        counting = 1 if self._count_line() else 0  # the row counting a long text's lines
        reserved = self._input_rows() + counting + asking + searching
        frame = lay_out(controller, size.columns, size.rows, reserved, self.panel_mode)
        self._frame_cache = (key, frame)
        return frame

    def _root(self) -> FloatContainer:
        has_panel = Condition(lambda: bool(self._panel_text()))
        has_live = Condition(lambda: bool(self._live_text()))
        wide = Condition(lambda: self.columns() >= FOLD_BELOW)
        live = SteadyWindow(
            FormattedTextControl(lambda: ANSI(self._live_text())),
            dont_extend_height=True,
            wrap_lines=False,
        )
        panel = FormattedTextControl(lambda: ANSI(self._panel_text()))
        beside = ConditionalContainer(self._beside(panel), filter=wide & has_panel)
        body = HSplit(
            [
                self.gap.container(),  # rows a re-lay freed, kept at the region's top
                ConditionalContainer(VSplit([live, beside]), filter=has_live | (has_panel & wide)),
                ConditionalContainer(
                    SteadyWindow(panel, dont_extend_height=True), filter=has_panel & ~wide
                ),
                self.picker.container(),
                self.dialogs.container(),
                self.question.container(),
                Window(FormattedTextControl(self._toolbar), height=1, style="class:toolbar"),
                self.history_search.container,  # Ctrl-R: a row above the input while searching
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
                SteadyWindow(
                    panel, width=lambda: side_width(self.columns()), dont_extend_height=True
                ),
            ]
        )

    def _input_row(self) -> HSplit:
        control = BufferControl(
            self.buffer, search_buffer_control=self.history_search.control, preview_search=True
        )
        height = lambda: Dimension.exact(self._input_rows())  # noqa: E731
        self._input = Window(control, height=height, wrap_lines=True)
        prompt = Window(
            FormattedTextControl([("class:prompt", PROMPT)]),
            width=len(PROMPT),
            dont_extend_height=True,
        )
        count = Window(FormattedTextControl(self._count_line), height=1, style="class:count")
        counting = Condition(lambda: bool(self._count_line()))
        return HSplit([ConditionalContainer(count, filter=counting), VSplit([prompt, self._input])])

    def _input_rows(self) -> int:
        return input_rows(self.buffer, self.columns() - len(PROMPT), self.rows())

    def _count_line(self) -> str:
        return count_line(self.buffer, self.columns() - len(PROMPT), self.rows())

    def notice_width(self) -> int:
        """Columns the status bar's notice takes (with its separator): the rest is the bar's."""
        return len(SEPARATOR) + len(self.notice) if self.notice else 0

    def _toolbar(self) -> StyleAndTextTuples:
        text = self.controller.toolbar() if self.controller else "starting…"
        if self.notice:
            text = f"{text}{SEPARATOR}{self.notice}"
        return [("class:toolbar", " " + text)]

    def on_cursor_report(self, row: int, column: int) -> None:
        route_answer(self.app, self.anchor, row, column)
        self.commits.answered()
        self.anchor.retry(self.app)

    def on_ctrl_c(self) -> None:
        if not self.picker.done(None):  # Ctrl-C first closes an open picker
            super().on_ctrl_c()

    # -- questions (the approval port's answers) ---------------------------------------------

    async def ask(
        self, question: str | Callable[[int, int], str], answers: dict[str, str], hint: str = ""
    ) -> str:
        """Ask in the bottom region; a key of `answers` picks its value. Ctrl-C / Esc -> 'deny'.
        A `question` given as a function of the columns and rows is laid out anew at each size;
        `hint` is what the status bar says meanwhile (by default: answer it, Esc cancels)."""
        return await self.question.ask(question, answers, hint or ASKED)

    def awaiting(self) -> str:
        """What the status bar says while an answer is awaited (not "working…"), else ""."""
        if self.picker.picking:
            return PICKING
        return self.question.waiting() or (DIALOG if self.dialogs.open else "")

    async def pick(self, title: str, options: list[str]) -> int | None:
        """One of `options` picked with the arrow keys and Enter; None if cancelled (Esc)."""
        return await self.picker.pick(title, options)

    async def ask_line(self, prompt: str) -> str | None:
        """A typed answer in the input box (Enter sends); None when Esc or Ctrl-C cancels it."""
        return await self.question.ask_line(prompt)

    def answer_key(self, key: str) -> None:
        self.question.answer_key(key)

    def answer(self, value: str) -> bool:
        return self.question.answer(value)

    # -- output ------------------------------------------------------------------------------

    def commit(self, text: str) -> None:
        """Print above the live region, into scrollback, after everything committed before."""
        self.commits.commit(text)

    async def flush(self) -> None:
        await self.commits.flush()

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
            self._leave_quietly()
            self.app.exit()

    def _leave_quietly(self) -> None:
        """The frames drawn from here on ask nothing: an answer arriving once the terminal is
        the shell's is echoed there."""
        output = self.app.output
        self.anchor.leave(self.app)
        if isinstance(output, FramedOutput):
            output.leaving = True  # no width probe at the end of the last frames
        output.flush()

    async def run(self, boot: Callable[[], object]) -> None:
        """Draw, then `boot` (loads the REPL and calls `attach`) right after the first frame."""

        def pre_run() -> None:
            self.app.create_background_task(self.commits.run())
            asyncio.get_running_loop().call_soon(boot)

        await self.app.run_async(pre_run=pre_run)
