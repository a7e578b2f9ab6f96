"""The one question the chat screen may be asking (an approval, a confirmation): a bold row
above the status bar, answered by one key; Ctrl-C or Esc answers 'deny'."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import ConditionalContainer, Window
from prompt_toolkit.layout.controls import FormattedTextControl


class Question:
    def __init__(self, invalidate: Callable[[], None], columns: Callable[[], int]) -> None:
        self._invalidate, self._columns = invalidate, columns
        self._pending: tuple[str, dict[str, str], asyncio.Future[str]] | None = None

    @property
    def asking(self) -> bool:
        return self._pending is not None

    async def ask(self, question: str, answers: dict[str, str]) -> str:
        """A key of `answers` picks its value."""
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._pending = (question, answers, future)
        self._invalidate()
        try:
            return await future
        finally:
            self._pending = None
            self._invalidate()

    def answer_key(self, key: str) -> None:
        if self._pending is not None and key in self._pending[1]:
            self.answer(self._pending[1][key])

    def answer(self, value: str) -> bool:
        if self._pending is None or self._pending[2].done():
            return False
        self._pending[2].set_result(value)
        return True

    def rows(self) -> int:
        if self._pending is None:
            return 0
        return 1 + len(self._pending[0]) // max(self._columns(), 1)

    def text(self) -> str:
        return self._pending[0] if self._pending else ""

    def _fragments(self) -> StyleAndTextTuples:
        return [("class:question", self.text())]

    def container(self) -> ConditionalContainer:
        window = Window(
            FormattedTextControl(self._fragments),
            style="class:question",
            height=lambda: self.rows(),
            wrap_lines=True,
        )
        return ConditionalContainer(window, filter=Condition(lambda: self.asking))
