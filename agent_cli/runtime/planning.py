"""Plan mode and the user's answers, as the Runtime keeps them (mixed into `Runtime`): the mode
to go back to when a plan is approved, the front end's dialogs as the session's `ask_user` and
`present_plan` ports, what an approval does (the mode restored; with a fresh context, the plan
starting a new context window after the round), and the plans kept so far (/plans).

Without a front end's `Asker` (agent run) the ports stay the headless ones: nobody to ask, and
the plan handed over as the run's result."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_cli.core import history
from agent_cli.core.asking import Answer, PlanDecisionResult, Question
from agent_cli.core.messages import Message
from agent_cli.core.options import PermissionMode
from agent_cli.session.state import Session
from agent_cli.tools.present_plan import saved_plans

if TYPE_CHECKING:
    from agent_cli.core.files.paths import Paths

FRESH_OPENING = (
    "You start in a fresh context window to implement a plan the user approved; the "
    "conversation that produced it is not shown here. Implement it step by step."
)


class Asker(Protocol):
    """What a front end with a user offers: the questions asked, the plan decided on."""

    async def ask(self, questions: list[Question]) -> list[Answer] | None: ...

    async def present_plan(self, plan: str, back_to: str) -> PlanDecisionResult:
        """`back_to`: the mode an approval returns to (shown with the options)."""
        ...


def fresh_start(plan: str, request: str, read: list[str]) -> list[Message]:
    """The first (and only) message of a new context window: the plan, the original request
    and where to look again."""
    parts = [FRESH_OPENING, f"## The user's request\n{request.strip() or '(none given)'}"]
    parts.append(f"## The approved plan\n{plan.strip()}")
    if read:
        listing = "\n".join(f"- {path}" for path in read)
        parts.append(f"## Files read while planning (read them again before editing)\n{listing}")
    return [history.user_text("\n\n".join(parts))]


class PlanRun(Protocol):
    """What planning needs of the Runtime."""

    @property
    def paths(self) -> Paths: ...
    @property
    def session(self) -> Session: ...
    def set_permission_mode(self, mode: PermissionMode) -> None: ...


class Planning:
    """Plan mode's way back and the front end's dialogs, as front ends reach them
    (`runtime.planning`), for this session and the ones /clear and /resume open."""

    def __init__(self, run: PlanRun) -> None:
        self.run = run
        self._asker: Asker | None = None
        self.mode_before_plan: PermissionMode | None = None  # what entering plan left

    def mode_after_plan(self) -> PermissionMode:
        """What an approved plan returns to: the mode before plan, else `default`."""
        return self.mode_before_plan or "default"

    def answer_with(self, asker: Asker) -> None:
        """The front end's dialogs answer ask_user and present_plan, in this session and the
        ones /clear and /resume open."""
        self._asker = asker
        self.wire(self.run.session)

    def wire(self, session: Session) -> None:
        asker = self._asker
        if asker is None:
            return
        session.tool_ctx.ask = asker.ask

        async def present(plan: str) -> PlanDecisionResult:
            decision = await asker.present_plan(plan, self.mode_after_plan())
            self._decided(session, plan, decision)
            return decision

        session.tool_ctx.present_plan = present

    def _decided(self, session: Session, plan: str, decision: PlanDecisionResult) -> None:
        if decision.choice not in ("implement", "fresh"):
            return
        self.run.set_permission_mode(self.mode_after_plan())
        if decision.choice == "fresh":
            ctx = session.tool_ctx
            read = sorted(_shown(path, ctx.workspace) for path in ctx.file_state)
            ctx.file_state.clear()  # the new context has seen none of them: edits read first
            session.request_fresh_context(fresh_start(plan, session.current_request or "", read))

    def plans(self) -> list[Path]:
        """/plans: every plan kept in this state folder, oldest first."""
        return saved_plans(self.run.paths)


def _shown(path: Path, workspace: Path) -> str:
    try:
        return str(path.relative_to(workspace.resolve()))
    except ValueError:
        return str(path)
