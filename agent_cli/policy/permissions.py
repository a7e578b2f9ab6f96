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
Every decision is logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

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
from agent_cli.policy.patterns import bash_pattern as bash_pattern
from agent_cli.policy.patterns import call_subject, folder_of, reads_outside
from agent_cli.policy.patterns import matches as matches
from agent_cli.tools.fs import PathRefused, protected, writable_path
from agent_cli.tools.shell.rules import denied, is_read_only

log = logging.getLogger(__name__)

EDIT_TOOLS = frozenset({"write_file", "edit_file"})
SETTINGS_FILE = ".agent/settings.json"
BYPASS = "run with --permission-mode bypass"
ACCEPT_EDITS = "run with --permission-mode accept-edits"


@dataclass(frozen=True)
class Ask:
    """The call needs a yes from the user; `hint` says how to allow it without one."""

    summary: str
    pattern: str
    hint: str
    reusable: bool = True  # False: no allow pattern answers it and "always" is not remembered


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
        name, subject = tool.name, call_subject(tool.name, args, ctx)
        refusal = self._refusal(name, args, ctx, subject)
        if refusal is not None:
            log.info("permission deny %s %r (every mode): %s", name, subject, refusal)
            return refusal
        decision = None if hook == "allow" else self._by_mode(tool, args, ctx, subject)
        if (
            decision is None
            and self.mode != "bypass"
            and (hook == "ask" or any(matches(p, name, subject) for p in self.ask_rules))
        ):
            decision = Ask(f"{name} {subject}", name, BYPASS, reusable=False)
        if isinstance(decision, Ask):
            failure = tool.precheck(args, ctx) if self._may_read(args, ctx) else None
            if failure is not None:
                log.info("permission not asked %s %r: it would fail", name, subject)
                return KnownFailure(failure)
            preview = subject if name == "bash" else tool.preview(args, ctx)
            arguments = args.model_dump(mode="json", exclude_unset=True)
            return await self._ask(name, subject, decision, preview, arguments)
        verdict = "allow" if decision is None else "deny"
        log.info("permission %s %s %r (mode %s)", verdict, name, subject, self.mode)
        return decision

    def _refusal(self, name: str, args: ToolInput, ctx: ToolContext, subject: str) -> str | None:
        if name in EDIT_TOOLS:
            try:
                writable_path(ctx, str(getattr(args, "path", "")))
            except PathRefused as e:
                return str(e)
        if name == "bash":
            reason = denied(subject)
            if reason:
                return f"Refused: {reason} is on the deny list and never runs, in any mode."
        for pattern in [*self.settings.deny, *self.extra_deny]:
            if matches(pattern, name, subject, deny=True):
                return f"Refused by the permissions.deny pattern {pattern!r} in settings."
        return None

    def _may_read(self, args: ToolInput, ctx: ToolContext) -> bool:
        """A call's path the model may read unasked: only there may a precheck tell it
        anything about the file (a deny rule hides what it covers, existence included)."""
        if not isinstance(getattr(args, "path", None), str) or reads_outside(args, ctx):
            return False
        subject = call_subject("read_file", args, ctx)
        deny = [*self.settings.deny, *self.extra_deny]
        return not any(matches(p, "read_file", subject, deny=True) for p in deny)

    def _by_mode(
        self, tool: AnyTool, args: ToolInput, ctx: ToolContext, subject: str
    ) -> str | Ask | None:
        """None: allowed; a string: refused; Ask: a question."""
        name = tool.name
        if self.mode == "bypass":
            return None
        if getattr(tool, "asks_permission", False):  # an MCP server's tool
            if self.mode == "plan" and not tool.read_only:
                return _plan_refusal(f"{name} (its server does not mark it read-only)")
            return Ask(name, name, BYPASS)
        outside = reads_outside(args, ctx) if tool.read_only else None
        if outside is not None:
            summary = f"{name} {outside} (outside the workspace)"
            return Ask(summary, f"{name}({folder_of(outside)}/*)", BYPASS)
        if name in EDIT_TOOLS:
            return self._edit(name, args, ctx, subject)
        if name == "web_fetch":  # read-only: plan mode allows it; elsewhere asked per domain
            if self.mode == "plan":
                return None
            url = str(getattr(args, "url", ""))
            return Ask(f"web_fetch {url}", f"web_fetch({subject})", BYPASS)
        if name == "bash":
            return self._bash(tool, args, ctx, subject)
        return None

    def _bash(
        self, tool: AnyTool, args: ToolInput, ctx: ToolContext, subject: str
    ) -> str | Ask | None:
        """Read-only or sandboxed: unasked; `unsandboxed` (asked for by the model) is always
        asked, and refused in plan mode, however read-only it looks: it bypasses the deny-read."""
        if getattr(args, "unsandboxed", False):
            if self.mode == "plan":
                return _plan_refusal(f"bash {subject} outside the sandbox")
            return Ask(f"bash {subject} (outside the sandbox)", bash_pattern(subject), BYPASS)
        if is_read_only(subject, ctx.workspace):
            return None
        if self.mode == "plan":
            return _plan_refusal(f"bash {subject}")
        unconfined = getattr(tool, "unconfined", None)
        if callable(unconfined) and not unconfined(args, ctx):
            return None
        return Ask(f"bash {subject}", bash_pattern(subject), BYPASS)

    def _edit(self, name: str, args: ToolInput, ctx: ToolContext, subject: str) -> str | Ask | None:
        if self.mode == "plan":
            return _plan_refusal(f"{name} {subject}")
        guarded = protected(ctx, ctx.resolve(str(getattr(args, "path", ""))))
        if guarded is not None:
            # shown as what "always" would allow: a pattern that matches no call
            once = f"nothing: {name} {subject} is asked every time"
            return Ask(f"{name} {subject} ({guarded})", once, BYPASS, reusable=False)
        if self.mode == "accept-edits":
            return None
        return Ask(f"{name} {subject}", name, ACCEPT_EDITS)

    async def _ask(
        self, name: str, subject: str, ask: Ask, preview: str, arguments: dict[str, object]
    ) -> str | None:
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


def _plan_refusal(summary: str) -> str:
    return (
        f"Refused in plan mode (read-only tools only): {summary}. Finish the plan; to make "
        "changes the user runs with --permission-mode default or accept-edits."
    )
