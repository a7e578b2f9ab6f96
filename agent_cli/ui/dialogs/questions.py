"""One of ask_user's questions as a picker in the chat screen's bottom region: its options and
"other…" (a typed answer), ↑/↓ and Enter or the option's number; in a multi-select Space or the
number ticks an option and Enter sends the ticked ones. Esc declines. Imports only
prompt_toolkit, like the rest of the screen."""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.layout import ConditionalContainer, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from agent_cli.ui.dialogs.plan_dialog import BOLD, DIM, RESET, REVERSE, cut

if TYPE_CHECKING:  # pydantic loads after the first frame
    from agent_cli.core.asking import Question

OTHER = "other… (type an answer)"
ONE_HINT = "↑/↓ and Enter, or the number · Esc declines"
MANY_HINT = "↑/↓ · Space or the number ticks · Enter sends · Esc declines"


@dataclass
class Picked:
    """The labels picked, and whether "other…" was (its text is typed next)."""

    labels: list[str]
    other: bool = False


class QuestionPicker:
    def __init__(self, invalidate: Callable[[], None], columns: Callable[[], int]) -> None:
        self._invalidate, self._columns = invalidate, columns
        self.question: Question | None = None
        self.place, self.chosen, self.ticked = "", 0, set[int]()
        self.color = True
        self._future: asyncio.Future[Picked | None] | None = None

    @property
    def open(self) -> bool:
        return self._future is not None

    @property
    def count(self) -> int:
        """The rows to choose from: the options, then "other…"."""
        return len(self.question.options) + 1 if self.question else 0

    async def ask(self, question: Question, place: str, color: bool = True) -> Picked | None:
        """The answer; None when the user declines (Esc). `place`: "1/2" with several."""
        self.question, self.place, self.color = question, place, color
        self.chosen, self.ticked = 0, set()
        self._future = asyncio.get_running_loop().create_future()
        self._invalidate()
        try:
            return await self._future
        finally:
            self._future, self.question = None, None
            self._invalidate()

    # -- keys --------------------------------------------------------------------------------

    def move(self, step: int) -> None:
        if self.count:
            self.chosen = (self.chosen + step) % self.count
            self._invalidate()

    def number(self, n: int) -> None:
        """The option numbered `n` (from 1): picked, or in a multi-select ticked."""
        if not 1 <= n <= self.count:
            return
        self.chosen = n - 1
        if self._multi():
            self.tick()
        else:
            self.accept()

    def tick(self) -> None:
        if self._multi():
            self.ticked ^= {self.chosen}
            self._invalidate()

    def accept(self) -> None:
        """Enter: the highlighted option, or in a multi-select the ticked ones."""
        if self.question is None:
            return
        picked = self.ticked if self._multi() else {self.chosen}
        if self._multi() and not picked:
            picked = {self.chosen}  # Enter on an unticked list sends the highlighted one
        labels = self.question.options
        chosen = [labels[n].label for n in sorted(picked) if n < len(labels)]
        self._finish(Picked(chosen, other=len(labels) in picked))

    def decline(self) -> None:
        self._finish(None)

    def _finish(self, picked: Picked | None) -> None:
        if self._future is not None and not self._future.done():
            self._future.set_result(picked)

    def _multi(self) -> bool:
        return bool(self.question and self.question.multi_select)

    # -- layout ------------------------------------------------------------------------------

    def lines(self) -> list[str]:
        question = self.question
        if question is None:
            return []
        width = max(self._columns(), 10)
        place = f" ({self.place})" if self.place else ""
        pick_any = " · pick any" if question.multi_select else ""
        head = f"? [{question.header}] {question.question}{place}{pick_any}"
        out = [self._style(BOLD, row) for row in textwrap.wrap(head, width - 1) or [head]]
        rows = [(o.label, o.description) for o in question.options] + [(OTHER, "")]
        for n, (label, description) in enumerate(rows):
            box = ("[x] " if n in self.ticked else "[ ] ") if question.multi_select else ""
            mark = ">" if n == self.chosen else " "
            about = f" — {description}" if description else ""
            line = cut(f"{mark} {box}{n + 1}. {label}{about}", width - 1)
            out.append(self._style(REVERSE, line) if n == self.chosen else line)
        hint = MANY_HINT if question.multi_select else ONE_HINT
        out.append(self._style(DIM, cut("  " + hint, width - 1)))
        return out

    def rows(self) -> int:
        return len(self.lines()) if self.open else 0

    def _style(self, sgr: str, text: str) -> str:
        return f"{sgr}{text}{RESET}" if self.color else text

    def container(self) -> ConditionalContainer:
        window = Window(
            FormattedTextControl(lambda: ANSI("\n".join(self.lines()))),
            height=lambda: self.rows(),
            wrap_lines=False,
        )
        return ConditionalContainer(window, filter=Condition(lambda: self.open))
