"""The REPL behind the screen (live.py): turns, the panel, the status bar, approval questions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from rich.text import Text

from agent_cli.core.events import Event, Steered
from agent_cli.core.options import next_mode
from agent_cli.runtime.runtime import Runtime, preload_sdk
from agent_cli.tools.shell.confined import notice_of
from agent_cli.ui.approver import ScreenApprover, use_color
from agent_cli.ui.attention import Attention
from agent_cli.ui.core import ChatCore
from agent_cli.ui.dialogs.asker import ScreenAsker
from agent_cli.ui.input.terminal import ScreenTerminal
from agent_cli.ui.render import render
from agent_cli.ui.render.history import history_lines
from agent_cli.ui.render.tool_log import ToolLog
from agent_cli.ui.screen.live import ChatScreen
from agent_cli.ui.screen.panel_fit import fit_panel
from agent_cli.ui.screen.side_panel import FOLD_BELOW, JobRow, side_width
from agent_cli.ui.slash import commands as slash
from agent_cli.ui.slash.trust_offer import offer_trust
from agent_cli.ui.status_bar import StatusBar
from agent_cli.ui.turn import TurnView

if TYPE_CHECKING:
    from agent_cli.core.options import Options
    from agent_cli.runtime.extensions.contract import PanelPart

SPIN_S = 0.1
WAKE = "(a background job ended)"  # the message of the turn an ended job starts
JOBS_TICK_S = 1.0


class Repl(ChatCore):
    def __init__(self, screen: ChatScreen, runtime: Runtime, color: bool) -> None:
        super().__init__(runtime)
        self.screen, self.color = screen, color
        self.view = TurnView(color=color)
        self.attention = Attention(runtime, screen.ping)
        if self.jobs is not None:
            self.jobs.listeners.append(self._jobs_changed)
        runtime.work.watch_inbox(self._inbox_changed)
        self._jobs_ticker: asyncio.Task[None] | None = None
        self.tools = ToolLog()  # what Ctrl-O shows
        self.terminal = ScreenTerminal(screen.app, screen.buffer, runtime.settings.vim_mode)
        self._panel_cache: tuple[tuple[int, int, int, str], str] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self.bar = StatusBar(runtime, lambda: self.panel_state, screen)  # and the title

    @classmethod
    def boot(cls, screen: ChatScreen, options: Options) -> Repl:
        from agent_cli.runtime.build import build_runtime
        from agent_cli.runtime.extensions.registry import discover

        extensions = discover()  # stderr is the screen: what failed is said on it below
        runtime = build_runtime(options, ScreenApprover(screen), True, extensions=extensions)
        preload_sdk()
        repl = cls(screen, runtime, use_color())
        if isinstance(runtime.approver, ScreenApprover):
            runtime.approver.attention, runtime.approver.view = repl.attention, repl.view
        asker = ScreenAsker(screen, repl.attention, repl.color, repl.view.asked)
        runtime.planning.answer_with(asker)  # ask_user, plans
        verb = "Resumed" if runtime.restored else "New"
        repl.redraw_history()
        repl.say(f"{verb} session {runtime.session.id}. /help lists commands.", "dim")
        if runtime.restored is not None and runtime.restored.forked:
            repl.say(runtime.restored.forked, "yellow")
        unconfined = notice_of(runtime.extension)  # auto's fallback, once
        if unconfined:
            repl.say(f"agent: {unconfined}", "yellow")
        for line in slash.extension_notes(extensions):
            repl.say(f"agent: {line}", "yellow")
        screen.attach(repl)
        repl.bar.start()
        asyncio.get_running_loop().create_task(offer_trust(screen, repl))  # then MCP servers
        return repl

    def redraw_history(self) -> None:
        """A resumed conversation goes back into scrollback before anything else."""
        self.tools = ToolLog()  # a switched-to session's calls, not the one left
        if self.runtime.restored is not None:
            width, restored = self.screen.columns(), self.runtime.restored
            for line in history_lines(restored, width, self.color, self.tools.feed):
                self.screen.commit(line)
        past = self.jobs.past_listing() if self.jobs is not None else ""
        if past:  # all ended with the previous run; their output stays
            self.say(past, "dim")

    def switched(self, message: str) -> None:
        self.redraw_history()
        super().switched(message)

    def rewound(self, message: str, prompt: str) -> None:
        """No second copy of the session: a line of what went back, the prompt to edit again."""
        super().rewound(message, prompt)
        if prompt:
            self.screen.restore_input(prompt)
            self.say("Its prompt is back in the input box (Enter sends it again).", "dim")

    # -- the screen's Controller --------------------------------------------------------------

    def live(self, width: int) -> str:
        self.view.width = self.screen.columns()
        queued = render.queued_lines(self.runtime.work.queued, width, self.color)
        return "\n".join(part for part in (self.view.live(width), queued) if part)

    def panel(self, columns: int, rows: int, mode: str) -> str:
        inner = (columns if columns < FOLD_BELOW else side_width(columns)) - 4 * self.color
        drawn = [(part.name, part_lines(part, inner)) for part in self.panel_parts]
        self.panel_state.extra = [(name, lines) for name, lines in drawn if lines]
        key = (hash(repr(self.panel_state)), columns, rows, mode)
        if self._panel_cache is None or self._panel_cache[0] != key:
            fitted = fit_panel(self.panel_state, columns, self.color, rows, mode)
            self._panel_cache = (key, fitted)
        return self._panel_cache[1]

    def toolbar(self) -> str:
        width = self.screen.columns() - 1 - self.screen.notice_width()
        return self.bar.text(self.busy, self.queued_count(), width, self.screen.awaiting())

    def tool_log(self) -> str:
        return self.tools.text()

    def cycle_mode(self) -> None:
        """Shown in the status bar only: a line in scrollback per key press was noise."""
        runtime = self.runtime
        runtime.set_permission_mode(next_mode(runtime.permission_mode))  # kept by /clear, /resume
        self.screen.invalidate()

    def submit(self, text: str) -> None:
        if self.busy and not text.strip().startswith("/"):  # shown under the reply until sent
            self.runtime.work.steer(text)
            self.screen.invalidate()
            return
        self.screen.commit(render.user_line(text, self.screen.columns(), self.color))
        if text.strip().startswith("/"):
            self.command(text.strip())
        else:
            self._begin(text)

    # -- ChatCore ------------------------------------------------------------------------------

    def columns(self) -> int:
        return self.screen.columns()

    def say(self, text: str, style: str = "") -> None:
        text_ = Text(text, style=style)
        self.screen.commit(render.to_ansi(text_, self.screen.columns(), self.color))

    def on_event(self, event: Event) -> None:
        self.tools.feed(event)
        steered = isinstance(event, Steered)  # between two replies: the first one ends here
        for line in (
            [*self.view.flush(), *self.view.feed(event)] if steered else self.view.feed(event)
        ):
            self.screen.commit(line)
        if isinstance(event, Steered):
            for text in event.texts:
                self.say(f"↳ sent to the model: {' '.join(text.split())[:200]}", "dim")
        self.screen.invalidate()

    # -- queued messages and jobs ------------------------------------------------------------

    def queued_count(self) -> int:
        return len(self.runtime.work.queued)

    def recall_queued(self) -> str | None:
        return self.runtime.work.recall_queued()

    def to_background(self) -> None:
        if self.jobs is None or not self.jobs.move_foreground():
            self.say("No command is running in the foreground.", "dim")

    def _inbox_changed(self) -> None:
        wake = self.runtime.settings.jobs.wake_on_end
        if (
            wake and self.runtime.work.notices_waiting and not self.busy
        ):  # a job ended while idle: the user allowed it
            self._begin(WAKE, lambda: self.runtime.notice_turn(WAKE))
        self.screen.invalidate()

    def _jobs_changed(self) -> None:
        self._refresh_jobs()
        if self.panel_state.jobs and (self._jobs_ticker is None or self._jobs_ticker.done()):
            self._jobs_ticker = asyncio.get_running_loop().create_task(self._tick_jobs())

    async def _tick_jobs(self) -> None:
        while self.panel_state.jobs:  # elapsed seconds and the newest line, once a second
            await asyncio.sleep(JOBS_TICK_S)
            self._refresh_jobs()

    def _refresh_jobs(self) -> None:
        rows = self.jobs.rows() if self.jobs is not None else []
        self.panel_state.jobs = [
            JobRow(row.id, row.command, row.elapsed_s, row.last_line, row.kept) for row in rows
        ]
        self.screen.invalidate()

    def on_interrupt(self) -> None:
        """A stopped turn: what was queued goes back to the input box, not to the model."""
        for line in self.view.interrupted():
            self.screen.commit(line)
        self.screen.commits.hurry()
        queued = self.runtime.work.give_back_queued()
        if queued:
            self.screen.restore_input("\n".join(queued))

    def on_idle(self) -> None:
        self.bar.set_state("idle")
        for line in self.view.flush():
            self.screen.commit(line)
        self.screen.commits.hurry()  # the turn's last lines: shown now, the user waits for them
        self.view.waiting = False
        self.attention.turn_ended(self.view.elapsed())
        self.screen.invalidate()
        following = self.runtime.work.next_queued()
        if following is not None:  # typed too late for the turn: it is the next one
            self.screen.commit(render.user_line(following, self.screen.columns(), self.color))
            self._begin(following)

    def exit(self) -> None:
        self.screen.exit()

    async def ask(self, question: str, answers: dict[str, str]) -> str | None:
        return await self.screen.ask(question, answers)  # Esc / Ctrl-C answer "deny"

    can_pick = True

    async def pick(self, title: str, options: list[str]) -> int | None:
        return await self.screen.pick(title, options)

    def compact(self, focus: str | None) -> None:
        super().compact(focus)
        self._spin()

    def send(self, text: str) -> None:
        if self.busy:
            super().send(text)  # says why not
        else:
            self._begin(text)

    # -- turns ---------------------------------------------------------------------------------

    def _begin(self, text: str, events: Callable[[], AsyncIterator[Event]] | None = None) -> None:
        self.bar.set_state("working")
        self.panel_state.drop_finished_todos()  # they stay in /todos
        self.view.begin()
        self.attention.turn_started()
        self.start(events or self.turn(text))
        self._spin()

    def _spin(self) -> None:
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        while self.busy:
            if self.view.spinning and not self.screen.asking:  # a frame only for a spinner
                self.view.frame += 1
                self.screen.invalidate()
            await asyncio.sleep(SPIN_S)

    async def shutdown(self) -> None:
        self.runtime.work.give_back_queued()  # nobody will read them
        self.interrupt()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        await self.bar.aclose()
        await self.close()


def part_lines(part: PanelPart, width: int) -> list[str]:
    """An extension's panel lines; what it raises is its one line, never a dead screen."""
    try:
        return [str(line) for line in part.lines(width)]
    except Exception as e:
        return [f"failed: {type(e).__name__}: {e}"]
