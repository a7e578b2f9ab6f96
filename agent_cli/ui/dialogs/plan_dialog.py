"""The plan the model presents (present_plan), whole, in the chat screen's bottom region: the
plan rendered at the screen's width and scrolled inside the rows the screen leaves (PgUp/PgDn,
Home/End, Space), then the three answers (↑/↓ and Enter, or the number). Esc / Ctrl-C stop the
turn as they do for an approval. Imports only prompt_toolkit: the screen draws before the
renderers load, so the plan's lines come from the caller."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.layout import ConditionalContainer, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from agent_cli.core.text.counts import counted

ANSWERS = (
    "yes, implement here",
    "yes, in a fresh context (the plan starts a new context window)",
    "no, keep planning (say what to change)",
)
HINT = "↑/↓ and Enter, or 1-3 · Esc / Ctrl-C stops the turn"
KEPT_ROWS = 4  # below the dialog: the status bar, the input, and rows the region leaves free
BOLD, DIM, REVERSE, RESET = "\x1b[1m", "\x1b[2m", "\x1b[7m", "\x1b[0m"

Lines = Callable[[int], list[str]]  # the plan rendered at a width, a line each (ANSI)


def cut(text: str, width: int) -> str:
    """Plain text cut to `width` columns."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


class PlanDialog:
    def __init__(
        self, invalidate: Callable[[], None], columns: Callable[[], int], rows: Callable[[], int]
    ) -> None:
        self._invalidate, self._columns, self._screen_rows = invalidate, columns, rows
        self._lines: Lines = lambda _width: []
        self._cache: tuple[int, list[str]] | None = None
        self.back_to = "default"
        self.chosen = self.top = 0
        self.at_end = False  # scrolled to the plan's end: a resize keeps it there
        self.color = True
        self._future: asyncio.Future[int] | None = None

    @property
    def open(self) -> bool:
        return self._future is not None

    async def present(self, lines: Lines, back_to: str, color: bool = True) -> int:
        """The answer picked: 0 implement here, 1 in a fresh context, 2 keep planning."""
        self._lines, self.back_to, self.color = lines, back_to, color
        self._cache, self.chosen, self.top, self.at_end = None, 0, 0, False
        self._future = asyncio.get_running_loop().create_future()
        self._invalidate()
        try:
            return await self._future
        finally:
            self._future = None
            self._invalidate()

    # -- keys --------------------------------------------------------------------------------

    def move(self, step: int) -> None:
        self.chosen = (self.chosen + step) % len(ANSWERS)
        self._invalidate()

    def scroll(self, step: int) -> None:
        """`step` lines down (negative: up), within the plan."""
        last = max(len(self.plan_lines()) - self.viewport(), 0)
        self.top = min(max(self.top + step, 0), last)
        self.at_end = self.top == last > 0
        self._invalidate()

    def page(self, pages: int) -> None:
        self.scroll(pages * max(self.viewport() - 1, 1))

    def pick(self, index: int) -> None:
        if self._future is not None and not self._future.done() and 0 <= index < len(ANSWERS):
            self._future.set_result(index)

    def accept(self) -> None:
        self.pick(self.chosen)

    # -- layout ------------------------------------------------------------------------------

    def plan_lines(self) -> list[str]:
        width = max(self._columns(), 10)
        if self._cache is None or self._cache[0] != width:
            before = len(self._cache[1]) if self._cache else 0
            self._cache = (width, self._lines(width))
            if before:  # re-wrapped: the same place in the plan, not the same line number
                self.top = self.top * len(self._cache[1]) // before
        return self._cache[1]

    def _fixed(self) -> int:
        return 2 + len(ANSWERS) + 1  # the heading, the question, the answers, the hint

    def viewport(self) -> int:
        """The plan's rows: all of it when it fits, else what the screen leaves."""
        room = self._screen_rows() - KEPT_ROWS - self._fixed()
        return max(min(len(self.plan_lines()), room), 1)

    def rows(self) -> int:
        return self.viewport() + self._fixed() if self.open else 0

    def text(self) -> str:
        if not self.open:
            return ""
        width, lines, shown = max(self._columns(), 10), self.plan_lines(), self.viewport()
        last = max(len(lines) - shown, 0)
        self.top = last if self.at_end else min(self.top, last)  # a resize changes what fits
        out = [self._heading(len(lines), shown, width)]
        out += lines[self.top : self.top + shown]
        out += [""] * (shown - len(lines[self.top : self.top + shown]))
        out.append(self._style(BOLD, cut("Implement this plan?", width)))
        for n, answer in enumerate(ANSWERS):
            label = answer + (f" (mode back to {self.back_to})" if n == 0 else "")
            line = cut(f"{'>' if n == self.chosen else ' '} {n + 1}. {label}", width)
            out.append(self._style(REVERSE, line) if n == self.chosen else line)
        out.append(self._style(DIM, cut("  " + HINT, width)))
        return "\n".join(out)

    def _heading(self, total: int, shown: int, width: int) -> str:
        if total <= shown:
            return self._style(BOLD, cut(f"◆ Plan ({counted(total, 'line')})", width))
        end = min(self.top + shown, total)
        where = f"◆ Plan · lines {self.top + 1}-{end} of {total} · PgUp/PgDn scroll"
        return self._style(BOLD, cut(where, width))

    def _style(self, sgr: str, text: str) -> str:
        return f"{sgr}{text}{RESET}" if self.color else text

    def container(self) -> ConditionalContainer:
        window = Window(
            FormattedTextControl(lambda: ANSI(self.text())),
            height=lambda: self.rows(),
            wrap_lines=False,
        )
        return ConditionalContainer(window, filter=Condition(lambda: self.open))
