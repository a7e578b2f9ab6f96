"""The approval port: how a permission question reaches whoever can answer it.

The REPL implements it with a question in its own input line; headless runs (`agent run`, no TTY)
use `HeadlessApprover`, which denies and says how to allow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

# "always": this pattern for the rest of the session; "project": also in later sessions here;
# "discard": a subagent's diff (kind "diff") thrown away rather than kept ("deny")
Decision = Literal["allow", "deny", "always", "project", "discard"]


@dataclass(frozen=True)
class ApprovalRequest:
    tool: str
    summary: str  # what will happen, as the user should read it: "bash rm build/ -r"
    pattern: str  # what "always" would allow for the rest of the session: "bash(rm build/*)"
    allow_hint: str  # how to allow it without a question: "--permission-mode accept-edits"
    preview: str = ""  # what would happen: the diff of an edit, the whole command
    rule: str = ""  # why it is asked: "edit_file asks in default mode"
    reusable: bool = True  # False: no pattern can answer it again (a protected file)
    call_id: str = ""  # the tool_use id of the call it asks about ("" when no call: a /command)
    kind: Literal["call", "diff"] = "call"  # "diff": apply an isolated subagent's diff?


USER_DENIED = "The user denied"  # how the tool result of a "no" begins (the UI says it shorter)


@dataclass(frozen=True)
class Denial:
    """A no with what to do instead: `feedback` reaches the model with the denial."""

    feedback: str


class Approver(Protocol):
    async def approve(self, request: ApprovalRequest) -> Decision | Denial: ...


class HeadlessApprover:
    """Nobody can answer: deny (the denial message names `allow_hint`)."""

    async def approve(self, request: ApprovalRequest) -> Decision | Denial:
        return "deny"
