"""Auto mode for a run: each session's reviewer (the port REVIEWER), its verdicts, and the limits
that stop it (denials in a row, denials in a session). Made when auto mode first answers."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_cli.core.errors import AgentError
from agent_cli.core.events import AutoVerdict, Judge, WarningEvent
from agent_cli.core.settings.schema import user_config_dir
from agent_cli.ext.auto import reviewer
from agent_cli.ext.auto.rules import Fixed, Reach, fixed
from agent_cli.policy.approval import ApprovalRequest, Approver, AutoDenial, Decision, Denial
from agent_cli.session.transcript import VerdictRecord

if TYPE_CHECKING:
    from agent_cli.context.ports import Compacted, StageContext
    from agent_cli.core.messages import Message
    from agent_cli.runtime.extensions.contract import ExtensionContext
    from agent_cli.runtime.runtime import Runtime

log = logging.getLogger(__name__)
OTHER_WAY = "Take another way that fits what the user asked, or leave it for the user."


class AutoModeStopped(AgentError):
    """`agent run` in auto mode: too many denials; the run ends (exit 1) naming them."""


@dataclass
class SessionVerdicts:
    verdicts: list[AutoVerdict] = field(default_factory=list)
    in_a_row: list[str] = field(default_factory=list)  # the reasons of the denials in a row
    denials: int = 0
    stopped: str = ""  # why auto mode stopped ("" while it answers)


class AutoService:
    """The run's auto mode: one SessionVerdicts per session id."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._sessions: dict[str, SessionVerdicts] = {}

    def of(self, session_id: str) -> SessionVerdicts:
        return self._sessions.setdefault(session_id, SessionVerdicts())

    @property
    def headless(self) -> bool:
        """Nobody to ask (`agent run`): what only the user may answer is denied."""
        return self.runtime.approver is None


class AutoReviewer:
    """The session's Reviewer: fixed rules first, then one reviewer request."""

    def __init__(self, service: AutoService, context: ExtensionContext) -> None:
        self.service, self.context = service, context
        self.state = service.of(context.session_id)

    async def review(
        self, request: ApprovalRequest, user: Approver
    ) -> Decision | Denial | AutoDenial:
        if self.state.stopped:
            return await self._user(request, user)
        settings = self.context.settings
        reach = Reach(
            self.context.workspace, settings.sandbox.network.allowed_domains, user_config_dir()
        )
        rule = fixed(request.tool, request.arguments, reach)
        if rule is not None:
            return await self._fixed(request, rule, user)
        answer = await self._ask_reviewer(request)
        if answer.verdict is None:
            why = f"reviewer failed: {answer.failure}"
            return self._deny(request, why, "reviewer", f"{why} (auto mode denies then)")
        if answer.verdict.decision == "allow":
            self._said(request, True, "reviewer", answer.verdict.reason)
            return "allow"
        reason = answer.verdict.reason
        return self._deny(request, reason, "reviewer", f"denied by auto mode's reviewer: {reason}")

    async def _fixed(
        self, request: ApprovalRequest, rule: Fixed, user: Approver
    ) -> Decision | Denial | AutoDenial:
        if rule.kind == "escape":
            told = (
                f"{rule.reason}; auto mode never allows that (a rule its reviewer cannot override)"
            )
            return self._deny(request, rule.reason, "rules", told)
        if self.service.headless:
            told = (f"{rule.reason}; that is the user's to answer, and no one can be asked in "
                    "a non-interactive run")  # fmt: skip
            return self._deny(request, rule.reason, "rules", told)
        return await self._user(request, user, rule.reason)

    async def _user(
        self, request: ApprovalRequest, user: Approver, why: str = ""
    ) -> Decision | Denial:
        answer = await user.approve(request)
        allowed = answer in ("allow", "always", "project")
        self._said(request, allowed, "user", why or "auto mode is stopped: the user answered")
        return answer

    async def _ask_reviewer(self, request: ApprovalRequest) -> reviewer.Review:
        runtime, settings = self.service.runtime, self.context.settings
        session = runtime.session
        model = session.model if settings.auto.model == "same" else settings.auto.model
        text = reviewer.user_message(
            request, reviewer.intent_of(session.messages), reviewer.sandbox_text(settings)
        )
        ask = reviewer.model_request(model, settings.auto.rules, text)
        answer = await reviewer.review((await runtime.agent()).client, ask, settings.auto.timeout_s)
        if answer.reply is not None:
            session.account(answer.reply.usage, reviewer.CALLER, answer.reply.model)
        return answer

    def _deny(self, request: ApprovalRequest, reason: str, by: Judge, told: str) -> AutoDenial:
        self._said(request, False, by, reason)
        state, limits = self.state, self.context.settings.auto
        state.denials += 1
        state.in_a_row.append(reason)
        if len(state.in_a_row) >= limits.max_denials_in_a_row:
            self._stop(f"{len(state.in_a_row)} denials in a row", state.in_a_row)
        elif state.denials >= limits.max_denials:
            self._stop(f"{state.denials} denials in this session", state.in_a_row)
        return AutoDenial(f"Refused in auto mode: {request.summary} — {told}. {OTHER_WAY}")

    def _stop(self, count: str, reasons: list[str]) -> None:
        self.state.stopped = f"auto mode stopped after {count}: {'; '.join(reasons)}"
        log.warning(self.state.stopped)
        if not self.service.headless:
            said = f"{self.state.stopped}. Questions go to you from now on."
            self.service.runtime.publish(WarningEvent(message=said))

    def _said(self, request: ApprovalRequest, allowed: bool, by: Judge, reason: str) -> None:
        call = request.preview if request.tool == "bash" and request.preview else request.summary
        event = AutoVerdict(
            call=call, allowed=allowed, by=by, reason=reason, tool_use_id=request.call_id
        )
        if allowed:
            self.state.in_a_row = []
        self.state.verdicts.append(event)
        log.info("%s", event.line())
        runtime = self.service.runtime
        runtime.session.record(VerdictRecord(call=call, allowed=allowed, by=by, reason=reason))
        runtime.publish(event)


class StopStage:
    """Before each request of `agent run`: auto mode stopped ends the run (exit 1), naming the
    denials, rather than letting the model try yet another way."""

    name = "auto"

    def __init__(self, service: AutoService, session_id: str) -> None:
        self.service, self.session_id = service, session_id

    async def apply(self, messages: list[Message], ctx: StageContext) -> Compacted | None:
        stopped = self.service.of(self.session_id).stopped
        if stopped and self.service.headless:
            raise AutoModeStopped(stopped)
        return None
