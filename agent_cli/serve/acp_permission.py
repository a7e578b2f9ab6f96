"""Approvals as `session/request_permission`: allow once, allow always (this pattern for the
rest of the session, as the REPL's "always"), reject. A client that answers `cancelled` (its
prompt was cancelled) or fails to answer denies."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from acp import helpers
from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    FileEditToolCallContent,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from agent_cli.policy.approval import ApprovalRequest, Decision, Denial
from agent_cli.serve.acp_updates import ToolCards

log = logging.getLogger(__name__)

Ask = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]
SHOWN_WAIT_S = 2.0  # how long a question waits for its tool call's card to reach the editor
ANSWERS: dict[str, Decision] = {"allow_once": "allow", "allow_always": "always"}


def options(request: ApprovalRequest) -> list[PermissionOption]:
    offered = [PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once")]
    if request.reusable:
        always = f"Always allow {request.pattern}"
        offered.append(PermissionOption(option_id="allow_always", name=always, kind="allow_always"))
    offered.append(PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"))
    return offered


def card(cards: ToolCards, request: ApprovalRequest, call_id: str) -> ToolCallUpdate:
    """The question as the editor shows it: the call's card, pending, with the edit's diff
    or the request's preview."""
    content: list[ContentToolCallContent | FileEditToolCallContent] = []
    diff = cards.proposed(call_id)
    if diff is not None:
        content.append(diff)
    elif request.preview:
        content.append(helpers.tool_content(helpers.text_block(request.preview)))
    return ToolCallUpdate(
        tool_call_id=call_id, title=request.summary, status="pending", content=content or None
    )


def decision(answer: RequestPermissionResponse) -> Decision:
    """An editor's answer: what it selected, else (cancelled) no."""
    outcome = answer.outcome
    if isinstance(outcome, AllowedOutcome):
        return ANSWERS.get(outcome.option_id, "deny")
    return "deny"


class AcpApprover:
    """The Approver port of one ACP session."""

    def __init__(self, cards: ToolCards, ask: Ask) -> None:
        self.cards, self.ask = cards, ask
        self.shown: dict[str, asyncio.Event] = {}  # call id -> its tool_call update went out

    def mark_shown(self, call_id: str) -> None:
        self.shown.setdefault(call_id, asyncio.Event()).set()

    async def approve(self, request: ApprovalRequest) -> Decision | Denial:
        call_id = request.call_id or f"ask-{id(request)}"
        if request.call_id:  # the editor shows the question on the call's card: send it first
            seen = self.shown.setdefault(call_id, asyncio.Event())
            try:
                await asyncio.wait_for(seen.wait(), SHOWN_WAIT_S)
            except TimeoutError:
                log.info("permission for %s asked before its card was shown", call_id)
        try:
            answer = await self.ask(card(self.cards, request, call_id), options(request))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a client that cannot answer: no
            log.warning("permission request failed: %s", e)
            return "deny"
        return decision(answer)
