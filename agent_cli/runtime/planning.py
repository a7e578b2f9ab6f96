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
from agent_cli.core.options import Options, PermissionMode
from agent_cli.session.state import Session
from agent_cli.tools.present_plan import saved_plans

if TYPE_CHECKING:
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.settings.schema import Settings

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


class Planning:
    """Mixed into Runtime, which provides these."""

    session: Session
    options: Options
    _asker: Asker | None = None
    _mode_before_plan: PermissionMode | None = None

    @property
    def settings(self) -> Settings:
        raise NotImplementedError

    @property
    def paths(self) -> Paths:
        raise NotImplementedError

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """From the next tool call on (what the permission check reads), also in the sessions
        /clear and /resume open; entering plan remembers the mode to go back to."""
        current = self.session.settings.permissions.mode
        if mode == "plan" and current != "plan":
            self._mode_before_plan = current
        self.session.settings.permissions.mode = mode
        self.options.permission_mode = mode

    def mode_after_plan(self) -> PermissionMode:
        """What an approved plan returns to: the mode before plan, else `default`."""
        return self._mode_before_plan or "default"

    def answer_with(self, asker: Asker) -> None:
        """The front end's dialogs answer ask_user and present_plan, in this session and the
        ones /clear and /resume open."""
        self._asker = asker
        self._wire_asking(self.session)

    def _wire_asking(self, session: Session) -> None:
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
        self.set_permission_mode(self.mode_after_plan())
        if decision.choice == "fresh":
            ctx = session.tool_ctx
            read = sorted(_shown(path, ctx.workspace) for path in ctx.file_state)
            ctx.file_state.clear()  # the new context has seen none of them: edits read first
            session.request_fresh_context(fresh_start(plan, session.current_request or "", read))

    def plans(self) -> list[Path]:
        """/plans: every plan kept in this state folder, oldest first."""
        return saved_plans(self.paths)


def _shown(path: Path, workspace: Path) -> str:
    try:
        return str(path.relative_to(workspace.resolve()))
    except ValueError:
        return str(path)
