"""The question the chat screen may be asking, in its bottom region above the status bar: an
approval answered by one key (Ctrl-C or Esc answers 'deny'), or a typed answer in the input box
(what the agent should do instead: Enter sends it, Esc or Ctrl-C cancels). A question given as
a function of the width is laid out again at each new width (a resize re-lays it)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.layout import ConditionalContainer, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.utils import get_cwidth

_SGR = re.compile(r"\x1b\[[0-9;]*m")
ASKED = "answer the question above · Esc cancels"  # the status bar's part while one waits
TYPED = "type your answer · Enter sends · Esc cancels"
Text = str | Callable[[int, int], str]  # ANSI, or ANSI laid out for a screen's columns and rows


class QuestionView:
    def __init__(
        self,
        invalidate: Callable[[], None],
        columns: Callable[[], int],
        rows: Callable[[], int] = lambda: 24,
    ) -> None:
        self._invalidate, self._columns, self._rows = invalidate, columns, rows
        self._pending: tuple[Text, dict[str, str], asyncio.Future[str]] | None = None
        self._line: tuple[str, asyncio.Future[str | None]] | None = None
        self._laid_out: tuple[Text, tuple[int, int], str] | None = None  # for a size
        self.hint = ""  # what the status bar says while a question waits

    @property
    def asking(self) -> bool:
        """A key answer is awaited (the keys go to the question, not the input box)."""
        return self._pending is not None

    @property
    def typing(self) -> bool:
        """A typed answer is awaited (Enter sends the input box to it)."""
        return self._line is not None and not self._line[1].done()

    async def ask(self, question: Text, answers: dict[str, str], hint: str = ASKED) -> str:
        """A key of `answers` picks its value; `hint` is the status bar's while it waits."""
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._pending, self.hint = (question, answers, future), hint
        self._invalidate()
        try:
            return await future
        finally:
            self._pending = self._laid_out = None
            self._invalidate()

    async def ask_line(self, prompt: str) -> str | None:
        """A typed answer in the input box; None when it is cancelled."""
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._line = (prompt, future)
        self._invalidate()
        try:
            return await future
        finally:
            self._line = None
            self._invalidate()

    def waiting(self) -> str:
        """The status bar's part while an answer is awaited, else ""."""
        if self.typing:
            return TYPED
        return self.hint if self.asking else ""

    def answer_key(self, key: str) -> None:
        if self._pending is not None and key in self._pending[1]:
            self.answer(self._pending[1][key])

    def answer(self, value: str) -> bool:
        if self._pending is None or self._pending[2].done():
            return False
        self._pending[2].set_result(value)
        return True

    def answer_line(self, text: str | None) -> bool:
        """Send (or with None cancel) the typed answer; False when none is awaited."""
        if self._line is None or self._line[1].done():
            return False
        self._line[1].set_result(text)
        return True

    def text(self) -> str:
        """ANSI: the approval view, or the typed answer's prompt."""
        if self._line is not None:
            return self._line[0]
        if self._pending is None:
            return ""
        question = self._pending[0]
        if isinstance(question, str):
            return question
        size = (max(self._columns(), 1), max(self._rows(), 1))
        laid = self._laid_out
        if laid is None or laid[0] is not question or laid[1] != size:
            laid = self._laid_out = (question, size, question(*size))
        return laid[2]

    def rows(self) -> int:
        text = self.text()
        if not text:
            return 0
        width = max(self._columns(), 1)
        plain = _SGR.sub("", text)  # the colours take no room
        return sum(max(1, -(-get_cwidth(line) // width)) for line in plain.split("\n"))

    def container(self) -> ConditionalContainer:
        window = Window(
            FormattedTextControl(lambda: ANSI(self.text())),
            style="class:question",
            height=lambda: self.rows(),
            wrap_lines=True,
        )
        return ConditionalContainer(window, filter=Condition(lambda: bool(self.text())))
