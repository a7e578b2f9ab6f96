"""The dialogs the model opens in the chat screen's bottom region (present_plan's plan, and
ask_user's questions), their rows and their keys. While one is open the screen is asking: the
input box's keys are held back and the spinner pauses."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit

from agent_cli.ui.dialogs.plan_dialog import ANSWERS, PlanDialog


class Dialogs:
    def __init__(
        self, invalidate: Callable[[], None], columns: Callable[[], int], rows: Callable[[], int]
    ) -> None:
        self.plan = PlanDialog(invalidate, columns, rows)

    @property
    def open(self) -> bool:
        return self.plan.open

    def rows(self) -> int:
        return self.plan.rows()

    def container(self) -> HSplit:
        return HSplit([self.plan.container()])

    def bindings(self) -> KeyBindings:
        kb = KeyBindings()
        plan = Condition(lambda: self.plan.open)
        moves = {"up": -1, "down": 1}
        scrolls = {"pageup": -1, "pagedown": 1, "space": 1}
        for key, step in moves.items():
            kb.add(key, filter=plan)(_call(partial(self.plan.move, step)))
        for key, pages in scrolls.items():
            kb.add(key, filter=plan)(_call(partial(self.plan.page, pages)))
        kb.add("home", filter=plan)(_call(partial(self.plan.scroll, -(1 << 30))))
        kb.add("end", filter=plan)(_call(partial(self.plan.scroll, 1 << 30)))
        kb.add("enter", filter=plan)(_call(self.plan.accept))
        for n in range(len(ANSWERS)):
            kb.add(str(n + 1), filter=plan)(_call(partial(self.plan.pick, n)))
        return kb


def _call(action: Callable[[], None]) -> Callable[[KeyPressEvent], None]:
    def handler(event: KeyPressEvent) -> None:
        action()

    return handler
