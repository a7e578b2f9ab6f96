"""Auto mode answers a confined command's unlisted network host as it answers a call: the
sandbox's proxy asks what `default` would ask the user, and in auto mode the session's reviewer
answers instead (after its fixed rules), asking the user only for what is the user's."""

from __future__ import annotations

from agent_cli.core.tool_contract import HostReview, UserAllows, current_call_id
from agent_cli.policy.approval import (
    ApprovalRequest,
    AutoDenial,
    Decision,
    Denial,
    Reviewer,
)
from agent_cli.policy.permissions import Permissions

HINT = "add the host to sandbox.network.allowed_domains"


class _UserByQuestion:
    """The Approver the reviewer hands what only the user may answer: the proxy's question."""

    def __init__(self, allows: UserAllows) -> None:
        self.allows = allows

    async def approve(self, request: ApprovalRequest) -> Decision | Denial:
        return "allow" if await self.allows() else "deny"


def host_review(permissions: Permissions) -> HostReview:
    async def review(
        host: str, port: int, command: str, user: UserAllows
    ) -> tuple[bool, str] | None:
        reviewer = permissions.reviewer() if permissions.mode == "auto" else None
        if not isinstance(reviewer, Reviewer):
            return None
        where = f"{host}:{port}"
        request = ApprovalRequest(
            "bash",
            f"a sandboxed command reaches {where}",
            f"network({where})",
            HINT,
            preview=command,
            rule="a host not on the sandbox's list asks in default mode",
            reusable=False,
            call_id=current_call_id.get() or "",
            arguments={"command": command, "host": where},
        )
        answer = await reviewer.review(request, _UserByQuestion(user))
        if answer in ("allow", "always", "project"):
            return True, ""
        if isinstance(answer, AutoDenial):
            return False, answer.message
        if isinstance(answer, Denial):
            return False, f"refused by the user, who said: {answer.feedback}"
        return False, "refused by the user"

    return review
