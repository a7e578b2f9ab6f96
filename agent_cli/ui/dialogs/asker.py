"""The chat screen's answers to the model (the runtime's `Asker`): ask_user's questions one
after the other in the question picker ("other…" typed in the input box), a presented plan
decided on in the plan dialog (feedback typed in the input box); each pings the user as an
approval does, and leaves its outcome in scrollback. One dialog at a time: calls of one round
wait for each other."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from agent_cli.core.asking import DECLINED, Answer, PlanDecisionResult, Question
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


Asked = Callable[[], AbstractContextManager[None]]  # the turn's timers stand still inside


class ScreenAsker:
    def __init__(self, screen: ChatScreen, attention: Attention, color: bool, asked: Asked) -> None:
        self.screen, self.attention, self.color = screen, attention, color
        self._one = asyncio.Lock()
        self._asked = asked

    async def ask(self, questions: list[Question]) -> list[Answer] | None:
        async with self._one:
            self.attention.ping("question", f"agent: {questions[0].question}")
            with self._asked():
                return await self._ask(questions)

    async def _ask(self, questions: list[Question]) -> list[Answer]:
        answers: list[Answer] = []
        for n, question in enumerate(questions):
            answer = await self._one_question(question, n, len(questions))
            answers.append(answer)
            self.screen.commit(self._answered(question, answer))
            if answer.declined:  # Esc declines what is left too
                rest = questions[n + 1 :]
                answers += [Answer(question=q.question, declined=True) for q in rest]
                break
        return answers

    async def _one_question(self, question: Question, n: int, of: int) -> Answer:
        place = f"{n + 1}/{of}" if of > 1 else ""
        picked = await self.screen.dialogs.question.ask(question, place, self.color)
        if picked is None:
            return Answer(question=question.question, declined=True)
        typed = ""
        if picked.other:
            prompt = f"Your answer to “{question.header}” (Enter sends, Esc declines):"
            typed = await self.screen.dialogs.typed(self.screen.ask_line, prompt)
            if not typed and not picked.labels:
                return Answer(question=question.question, declined=True)
        return Answer(question=question.question, chosen=picked.labels, typed=typed)

    def _answered(self, question: Question, answer: Answer) -> str:
        given = [*answer.chosen, *([answer.typed] if answer.typed else [])]
        said = f"({DECLINED})" if answer.declined else "; ".join(given)
        line = f"? {question.header}: {question.question} → {said}"
        return render.info_line(line, self.screen.columns(), self.color)

    async def present_plan(self, plan: str, back_to: str) -> PlanDecisionResult:
        async with self._one:
            self.attention.ping("question", "agent: a plan waits for your approval")
            with self._asked():
                return await self._present_plan(plan, back_to)

    async def _present_plan(self, plan: str, back_to: str) -> PlanDecisionResult:
        index = await self.screen.dialogs.plan.present(self._lines(plan), back_to, self.color)
        width = self.screen.columns()
        self.screen.commit(render.markdown(plan, width, self.color) + "\n")
        if index < len(DECIDED):
            self.screen.commit(render.info_line(DECIDED[index], width, self.color, "green"))
            return PlanDecisionResult(choice="implement" if index == 0 else "fresh")
        typed = await self.screen.dialogs.typed(self.screen.ask_line, FEEDBACK_PROMPT)
        said = f": {typed}" if typed else ""
        self.screen.commit(render.info_line(f"↺ keep planning{said}", width, self.color))
        return PlanDecisionResult(choice="keep_planning", feedback=typed)

    def _lines(self, plan: str) -> Lines:
        return lambda width: render.markdown(plan, width, self.color).split("\n")
