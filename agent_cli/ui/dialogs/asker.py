"""The chat screen's answers to the model (the runtime's `Asker`): a presented plan decided on
in the plan dialog, feedback typed in the input box; each ping the user as an approval does.
One dialog at a time: calls of one round wait for each other."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent_cli.core.asking import Answer, PlanDecisionResult, Question, headless_ask
from agent_cli.ui.dialogs.plan_dialog import Lines
from agent_cli.ui.render import render

if TYPE_CHECKING:
    from agent_cli.ui.attention import Attention
    from agent_cli.ui.screen.live import ChatScreen

FEEDBACK_PROMPT = "What should change in the plan? (Enter sends, Esc sends no feedback):"
DECIDED = (
    "✔ plan approved: implementing it here",
    "✔ plan approved: implementing it in a fresh context",
)


class ScreenAsker:
    def __init__(self, screen: ChatScreen, attention: Attention, color: bool) -> None:
        self.screen, self.attention, self.color = screen, attention, color
        self._one = asyncio.Lock()

    async def ask(self, questions: list[Question]) -> list[Answer] | None:
        return await headless_ask(questions)

    async def present_plan(self, plan: str, back_to: str) -> PlanDecisionResult:
        async with self._one:
            self.attention.ping("question", "agent: a plan waits for your approval")
            index = await self.screen.dialogs.plan.present(self._lines(plan), back_to, self.color)
            width = self.screen.columns()
            self.screen.commit(render.markdown(plan, width, self.color) + "\n")
            if index < len(DECIDED):
                self.screen.commit(render.info_line(DECIDED[index], width, self.color, "green"))
                return PlanDecisionResult(choice="implement" if index == 0 else "fresh")
            typed = (await self.screen.ask_line(FEEDBACK_PROMPT) or "").strip()
            said = f": {typed}" if typed else ""
            self.screen.commit(render.info_line(f"↺ keep planning{said}", width, self.color))
            return PlanDecisionResult(choice="keep_planning", feedback=typed)

    def _lines(self, plan: str) -> Lines:
        return lambda width: render.markdown(plan, width, self.color).split("\n")
