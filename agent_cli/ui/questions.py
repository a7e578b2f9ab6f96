"""The questions the chat screen asks in its bottom region: an approval answered by a key, or a
typed answer in the input box (what the agent should do instead)."""

from __future__ import annotations

import asyncio
import re

from prompt_toolkit.formatted_text import ANSI


class Questions:
    """Mixed into ChatScreen: the pending question, its height and its answers."""

    _question: tuple[str, dict[str, str], asyncio.Future[str]] | None = None
    _line: tuple[str, asyncio.Future[str | None]] | None = None

    def columns(self) -> int:
        raise NotImplementedError

    def invalidate(self) -> None:
        raise NotImplementedError

    @property
    def asking(self) -> bool:
        return self._question is not None

    def _question_rows(self) -> int:
        text = self._line[0] if self._line else self._question[0] if self._question else ""
        if not text:
            return 0
        width = max(self.columns(), 1)
        plain = re.sub(r"\x1b\[[0-9;]*m", "", text)  # the colours take no room
        return sum(1 + len(line) // width for line in plain.split("\n"))

    def _question_text(self) -> ANSI:
        if self._line is not None:
            return ANSI(self._line[0])
        return ANSI(self._question[0] if self._question else "")

    # -- questions (the approval port's answers) ---------------------------------------------

    async def ask(self, question: str, answers: dict[str, str]) -> str:
        """Ask in the bottom region; a key of `answers` picks its value. Ctrl-C / Esc -> 'deny'."""
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._question = (question, answers, future)
        self.invalidate()
        try:
            return await future
        finally:
            self._question = None
            self.invalidate()

    async def ask_line(self, prompt: str) -> str | None:
        """A typed answer in the input box (Enter sends); None when Esc or Ctrl-C cancels it."""
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._line = (prompt, future)
        self.invalidate()
        try:
            return await future
        finally:
            self._line = None
            self.invalidate()

    def answer_key(self, key: str) -> None:
        if self._question is not None and key in self._question[1]:
            self.answer(self._question[1][key])

    def answer(self, value: str) -> bool:
        if self._question is None or self._question[2].done():
            return False
        self._question[2].set_result(value)
        return True
