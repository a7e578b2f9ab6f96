"""Permission decisions for tool calls (SPEC §12).

Order: hard refusals first (a file tool writing outside the workspace or into the state folders,
the shell deny list, `permissions.deny` patterns) — refused in every mode, `bypass` included.
Then the mode decides: allowed, refused (plan), or a question. A question is answered by an
allow pattern (settings, or an "always" answer of this session), else by the approval port; a
headless run denies and the message names the flag or setting that would allow the call.
A write to a protected file (the agent's settings, git's internals: `tools.fs.protected`) is asked
every time outside bypass: no allow pattern answers it and "always" allows that one call only.
`web_fetch` is asked per domain in `default` and `accept-edits` (its subject is `domain:<host>`,
its "always" pattern `web_fetch(domain:<host>)`); `plan` allows it, as a read-only tool.
A bash command that runs in the sandbox is not asked in `default` or `accept-edits`; one the
model marks `unsandboxed` is asked in every mode but bypass (and refused in plan).
`auto` asks what `default` asks, and the session's reviewer (the port `REVIEWER`) answers it.
Every decision is logged. What the rules say of one call is call_rules.py, imported by the
first call's check.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_cli.core.settings.schema import PermissionSettings
from agent_cli.core.tool_contract import (
    AnyTool,
    KnownFailure,
    ToolContext,
    ToolInput,
    current_call_id,
)
from agent_cli.policy.approval import (
    USER_DENIED,
    ApprovalRequest,
    Approver,
    AutoDenial,
    Decision,
    Denial,
    HeadlessApprover,
    Reviewer,
)

if TYPE_CHECKING:
    from agent_cli.policy.call_rules import Ask

log = logging.getLogger(__name__)

SETTINGS_FILE = ".agent/settings.json"


@dataclass
class Permissions:
    settings: PermissionSettings
    approver: Approver = field(default_factory=HeadlessApprover)
    session_allow: list[str] = field(default_factory=list)  # "always" answers
    # "don't ask again in this project" answers: loaded at start, saved as they are given
    project_allow: list[str] = field(default_factory=list)
    save_project_rule: Callable[[str], None] = lambda _pattern: None
    # project files (.claude/settings.json rules; a command's allowed-tools for its turn only)
    extra_allow: list[str] = field(default_factory=list)
    extra_deny: list[str] = field(default_factory=list)
    ask_rules: list[str] = field(default_factory=list)
    turn_allow: list[str] = field(default_factory=list)
    # auto mode's reviewer, asked for at its first question (None: the approver answers)
    reviewer: Callable[[], object | None] = lambda: None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def mode(self) -> str:
        return self.settings.mode

    async def check(
        self, tool: AnyTool, args: ToolInput, ctx: ToolContext, hook: str | None = None
    ) -> str | None:
        """None when the call may run, else the denial the model reads. `hook` is a
        PreToolUse hook's say: "allow" skips the question, "ask" asks even where the mode
        would not; neither lifts a refusal."""
        # the rules a call is checked by: imported by the first call, not before
        from agent_cli.policy import call_rules
        from agent_cli.policy.patterns import call_subject, matches

        name, subject = tool.name, call_subject(tool.name, args, ctx)
        deny = [*self.settings.deny, *self.extra_deny]
        refusal = call_rules.refusal(name, args, ctx, subject, deny)
        if refusal is not None:
            log.info("permission deny %s %r (every mode): %s", name, subject, refusal)
            return refusal
        decision = (
            None if hook == "allow" else call_rules.by_mode(self.mode, tool, args, ctx, subject)
        )
        if (
            decision is None
            and self.mode != "bypass"
            and (hook == "ask" or any(matches(p, name, subject) for p in self.ask_rules))
        ):
            decision = call_rules.Ask(f"{name} {subject}", name, call_rules.BYPASS, reusable=False)
        if isinstance(decision, call_rules.Ask):
            failure = tool.precheck(args, ctx) if call_rules.may_read(args, ctx, deny) else None
            if failure is not None:
                log.info("permission not asked %s %r: it would fail", name, subject)
                return KnownFailure(failure)
            preview = subject if name == "bash" else tool.preview(args, ctx)
            arguments = args.model_dump(mode="json", exclude_unset=True)
            return await self._ask(name, subject, decision, preview, arguments)
        verdict = "allow" if decision is None else "deny"
        log.info("permission %s %s %r (mode %s)", verdict, name, subject, self.mode)
        return decision

    async def _ask(
        self, name: str, subject: str, ask: Ask, preview: str, arguments: dict[str, object]
    ) -> str | None:
        from agent_cli.policy.patterns import matches

        async with self._lock:  # one question at a time; an "always" answers the ones after it
            allow = [
                *self.settings.allow,
                *self.extra_allow,
                *self.turn_allow,
                *self.session_allow,
                *self.project_allow,
            ]
            patterns = allow if ask.reusable else []
            for pattern in patterns:
                if matches(pattern, name, subject):
                    log.info("permission allow %s %r (pattern %r)", name, subject, pattern)
                    return None
            request = ApprovalRequest(
                name,
                ask.summary,
                ask.pattern,
                self._hint(ask),
                preview,
                rule=f"{name} asks in {self.mode} mode",
                reusable=ask.reusable,
                call_id=current_call_id.get() or "",
                arguments=dict(arguments),
            )
            answer = await self._answer(request)
            if isinstance(answer, AutoDenial):
                log.info("permission deny %s %r (auto mode)", name, subject)
                return answer.message
            self._remember(answer, ask)
        shown = "deny" if isinstance(answer, Denial) else answer
        log.info("permission %s %s %r (asked, mode %s)", shown, name, subject, self.mode)
        if answer in ("allow", "always", "project"):
            return None
        if isinstance(answer, Denial):
            return f"{USER_DENIED} {ask.summary} and said what to do instead: {answer.feedback}"
        if isinstance(self.approver, HeadlessApprover):
            return (
                f"Permission denied: {ask.summary} needs approval in {self.mode} mode, and no "
                f"one can be asked in a non-interactive run. To allow it: {self._hint(ask)}."
            )
        return f"{USER_DENIED} {ask.summary}. Do not retry it unchanged; ask the user how to go on."

    async def _answer(self, request: ApprovalRequest) -> Decision | Denial | AutoDenial:
        """The user's approver, or in auto mode the session's reviewer (which asks the user's
        approver for what only the user may answer)."""
        reviewer = self.reviewer() if self.mode == "auto" else None
        if not isinstance(reviewer, Reviewer):
            return await self.approver.approve(request)
        return await reviewer.review(request, self.approver)

    def _remember(self, answer: object, ask: Ask) -> None:
        if not ask.reusable:
            return
        if answer in ("always", "project"):
            self.session_allow.append(ask.pattern)
        if answer == "project":
            self.project_allow.append(ask.pattern)
            self.save_project_rule(ask.pattern)

    @staticmethod
    def _hint(ask: Ask) -> str:
        if not ask.reusable:
            return ask.hint
        return f'{ask.hint}, or add "{ask.pattern}" to permissions.allow in {SETTINGS_FILE}'
