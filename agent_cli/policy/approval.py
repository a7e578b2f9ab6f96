"""The approval port: how a permission question reaches whoever can answer it.

The REPL implements it with a question in its own input line; headless runs (`agent run`, no TTY)
use `HeadlessApprover`, which denies and says how to allow. In auto mode a `Reviewer` (the port
`REVIEWER`, an extension's) answers instead, and asks the user's approver where it must.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

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
    arguments: dict[str, Any] = field(default_factory=dict)  # the call's input, as validated


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


@dataclass(frozen=True)
class AutoDenial:
    """A no from auto mode (its rules or its reviewer), not the user's: `message` is the call's
    error result, as the model reads it."""

    message: str


REVIEWER = "permission_reviewer"  # the port: a Reviewer for the session


@runtime_checkable
class Reviewer(Protocol):
    """Answers in auto mode what `default` would ask the user; `user` is the front end's
    approver, for what only the user may answer."""

    async def review(
        self, request: ApprovalRequest, user: Approver
    ) -> Decision | Denial | AutoDenial: ...
