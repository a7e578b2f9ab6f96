"""The dialogs the model opens in the chat screen's bottom region (present_plan's plan, and
ask_user's questions), their rows and their keys. While one is open the screen is asking: the
input box's keys are held back and the spinner pauses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit

from agent_cli.ui.dialogs.plan_dialog import ANSWERS, PlanDialog
from agent_cli.ui.dialogs.questions import QuestionPicker

MAX_OPTIONS = 5  # ask_user's 4, then "other…"


class Dialogs:
    def __init__(
        self,
        invalidate: Callable[[], None],
        columns: Callable[[], int],
        rows: Callable[[], int],
        cancel_line: Callable[[], object],
    ) -> None:
        self.plan = PlanDialog(invalidate, columns, rows)
        self.question = QuestionPicker(invalidate, columns)
        self._cancel_line = cancel_line
        self.typing = False  # a dialog's typed answer is in the input box

    async def typed(self, ask_line: Callable[[str], Awaitable[str | None]], prompt: str) -> str:
        """A dialog's typed answer ("other…", a plan's feedback): Esc sends nothing instead of
        stopping the turn."""
        self.typing = True
        try:
            return (await ask_line(prompt) or "").strip()
        finally:
            self.typing = False

    @property
    def open(self) -> bool:
        return self.plan.open or self.question.open

    def rows(self) -> int:
        return self.plan.rows() + self.question.rows()

    def container(self) -> HSplit:
        return HSplit([self.plan.container(), self.question.container()])

    def bindings(self) -> KeyBindings:
        kb = KeyBindings()
        self._plan_keys(kb)
        self._question_keys(kb)
        typing = Condition(lambda: self.typing)
        kb.add("escape", filter=typing, eager=True)(_call(self._cancel))
        return kb

    def _cancel(self) -> None:
        self._cancel_line()

    def _plan_keys(self, kb: KeyBindings) -> None:
        plan = Condition(lambda: self.plan.open)
        for key, step in {"up": -1, "down": 1}.items():
            kb.add(key, filter=plan)(_call(partial(self.plan.move, step)))
        for key, pages in {"pageup": -1, "pagedown": 1, "space": 1}.items():
            kb.add(key, filter=plan)(_call(partial(self.plan.page, pages)))
        kb.add("home", filter=plan)(_call(partial(self.plan.scroll, -(1 << 30))))
        kb.add("end", filter=plan)(_call(partial(self.plan.scroll, 1 << 30)))
        kb.add("enter", filter=plan)(_call(self.plan.accept))
        for n in range(len(ANSWERS)):
            kb.add(str(n + 1), filter=plan)(_call(partial(self.plan.pick, n)))

    def _question_keys(self, kb: KeyBindings) -> None:
        asked = Condition(lambda: self.question.open)
        for key, step in {"up": -1, "down": 1}.items():
            kb.add(key, filter=asked)(_call(partial(self.question.move, step)))
        kb.add("space", filter=asked)(_call(self.question.tick))
        kb.add("enter", filter=asked)(_call(self.question.accept))
        # eager: the screen's own Esc would stop the turn; here it declines the question
        kb.add("escape", filter=asked, eager=True)(_call(self.question.decline))
        for n in range(1, MAX_OPTIONS + 1):
            kb.add(str(n), filter=asked)(_call(partial(self.question.number, n)))


def _call(action: Callable[[], None]) -> Callable[[KeyPressEvent], None]:
    def handler(event: KeyPressEvent) -> None:
        action()

    return handler
