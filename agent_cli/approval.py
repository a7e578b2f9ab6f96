"""The approval port: how a permission question reaches whoever can answer it.

The REPL implements it with a question in its own input line; headless runs (`agent run`, no TTY)
use `HeadlessApprover`, which denies and says how to allow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

Decision = Literal["allow", "deny", "always"]


@dataclass(frozen=True)
class ApprovalRequest:
    tool: str
    summary: str  # what will happen, as the user should read it: "bash rm build/ -r"
    pattern: str  # what "always" would allow for the rest of the session: "bash(rm build/*)"
    allow_hint: str  # how to allow it without a question: "--permission-mode accept-edits"


class Approver(Protocol):
    async def approve(self, request: ApprovalRequest) -> Decision: ...


class HeadlessApprover:
    """Nobody can answer: deny (the denial message names `allow_hint`)."""

    async def approve(self, request: ApprovalRequest) -> Decision:
        return "deny"
