"""A pick-one list in the chat screen's bottom region (the `/resume` picker): a title row, then
the options with the chosen one highlighted; Up/Down move, Enter picks, Esc or Ctrl-C cancels.
The list scrolls inside the rows the screen gives it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import ConditionalContainer, Window
from prompt_toolkit.layout.controls import FormattedTextControl

HINT = "  ↑/↓ move · Enter picks · Esc cancels"


class Picker:
    def __init__(self, invalidate: Callable[[], None], rows: Callable[[], int]) -> None:
        self._invalidate, self._screen_rows = invalidate, rows
        self._title, self._options = "", list[str]()
        self.chosen = 0
        self._future: asyncio.Future[int | None] | None = None

    @property
    def picking(self) -> bool:
        return self._future is not None

    async def pick(self, title: str, options: list[str]) -> int | None:
        """The index of the option picked; None when cancelled (or nothing to pick)."""
        if not options:
            return None
        self._title, self._options, self.chosen = title, options, 0
        self._future = asyncio.get_running_loop().create_future()
        self._invalidate()
        try:
            return await self._future
        finally:
            self._future = None
            self._invalidate()

    def move(self, step: int) -> None:
        if self._options:
            self.chosen = (self.chosen + step) % len(self._options)
            self._invalidate()

    def done(self, index: int | None) -> bool:
        if self._future is None or self._future.done():
            return False
        self._future.set_result(index)
        return True

    def accept(self) -> None:
        self.done(self.chosen)

    def rows(self) -> int:
        """Title and options, within a third of the screen."""
        if not self.picking:
            return 0
        return min(1 + len(self._options), max(self._screen_rows() // 3, 2))

    def _fragments(self) -> StyleAndTextTuples:
        shown = self.rows() - 1
        start = min(max(self.chosen - shown + 1, 0), max(len(self._options) - shown, 0))
        out: StyleAndTextTuples = [("class:question", self._title + HINT + "\n")]
        for n in range(start, start + shown):
            style = "class:picked" if n == self.chosen else ""
            mark = ">" if n == self.chosen else " "
            end = "\n" if n < start + shown - 1 else ""
            out.append((style, f"{mark} {self._options[n]}{end}"))
        return out

    def container(self) -> ConditionalContainer:
        window = Window(
            FormattedTextControl(self._fragments),
            height=lambda: self.rows(),
            wrap_lines=False,
        )
        return ConditionalContainer(window, filter=Condition(lambda: self.picking))
