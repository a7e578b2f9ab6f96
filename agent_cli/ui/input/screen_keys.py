"""What the chat screen's keys do (ui/input/keys.py binds them): send, stop, the exit window, the
permission mode. One rule for Esc and Ctrl-C: deny a pending question, stop the running turn."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from prompt_toolkit.buffer import Buffer

if TYPE_CHECKING:
    from agent_cli.ui.dialogs.region import Dialogs
    from agent_cli.ui.screen.contract import Controller
    from agent_cli.ui.screen.question import QuestionView

EXIT_WINDOW_S = 2.0  # a second Ctrl-C on an empty prompt within this exits


class KeyActions:
    """Mixed into ChatScreen (ui/screen/live.py), which provides these."""

    controller: Controller | None
    buffer: Buffer
    question: QuestionView
    dialogs: Dialogs
    early: list[str]
    notice: str
    _last_ctrl_c: float

    def invalidate(self) -> None:
        raise NotImplementedError

    def exit(self) -> None:
        raise NotImplementedError

    def answer(self, value: str) -> bool:
        raise NotImplementedError

    @property
    def asking(self) -> bool:
        return self.question.asking or self.dialogs.open

    @property
    def busy(self) -> bool:
        return bool(self.controller and self.controller.busy)

    def send(self) -> None:
        text = self.buffer.text
        if self.question.typing:
            self.buffer.reset()
            self.question.answer_line(text)
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
        self.question.answer_line(None)
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

    def show_tools(self) -> None:
        """The full-screen view of the session's tool calls (Esc comes back here)."""
        if self.controller is not None:
            from agent_cli.ui.tool_view import show_tool_view

            asyncio.get_running_loop().create_task(show_tool_view(self.controller.tool_log()))

    def restore_input(self, text: str) -> None:
        """Put text back in the input box, before whatever is being typed."""
        typed = self.buffer.text
        self.buffer.text = text + ("\n" + typed if typed else "")
        self.buffer.cursor_position = len(self.buffer.text)
        self.invalidate()
