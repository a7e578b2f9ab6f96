"""The approval port of `agent chat`: a question in the screen's bottom region, answered by a
number; its timers stand still and the ping rings while it waits."""

from __future__ import annotations

import contextlib
import os

from agent_cli.policy.approval import ApprovalRequest, Decision, Denial
from agent_cli.ui.attention import Attention
from agent_cli.ui.render import approval_view, render
from agent_cli.ui.screen.live import ChatScreen
from agent_cli.ui.turn import TurnView


def use_color() -> bool:
    return not os.environ.get("NO_COLOR")


class ScreenApprover:
    """The approval port: the question with its facts in the REPL's bottom region, answered by
    a number; "4" asks for what to do instead, which goes to the model with the denial."""

    def __init__(self, screen: ChatScreen) -> None:
        self.screen = screen
        self.attention: Attention | None = None  # the ping when a question waits
        self.view: TurnView | None = None  # its timers stand still while the question waits

    async def approve(self, request: ApprovalRequest) -> Decision | Denial:
        if self.attention is not None:
            self.attention.ping("approval", f"agent: allow {request.summary}?")
        with self.view.asked(request.call_id) if self.view else contextlib.nullcontext():
            return await self._answer(request)

    async def _answer(self, request: ApprovalRequest) -> Decision | Denial:
        # laid out at the screen's size of each frame: a resize re-lays it
        def text(columns: int, rows: int) -> str:
            return approval_view.question(request, columns, use_color(), rows)

        answer = await self.screen.ask(text, approval_view.answers(request), approval_view.HINT)
        if answer == "feedback":
            typed = await self.screen.ask_line(approval_view.FEEDBACK_PROMPT)
            if not (typed and typed.strip()):
                return "deny"
            said = f"↳ told the agent instead: {' '.join(typed.split())}"  # kept on screen
            self.screen.commit(render.info_line(said, self.screen.columns(), use_color()))
            return Denial(typed)
        if answer == "project":
            self.screen.commit(
                render.info_line(
                    f"✔ {request.pattern} is allowed in this project from now on", 200, use_color()
                )
            )
            return "project"
        if answer == "discard":
            return "discard"
        return "allow" if answer == "allow" else "deny"
