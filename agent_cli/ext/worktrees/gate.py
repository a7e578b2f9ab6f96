"""The gate an isolated subagent works under: the parent's, except that in default mode its
edits inside its own worktree run unasked (accept-edits). Nothing it edits reaches the user's
checkout until its diff is approved; its shell commands are asked as the parent's are."""

from __future__ import annotations

from dataclasses import replace

from agent_cli.core.tool_contract import Gate
from agent_cli.ext.worktrees.settle import Decider
from agent_cli.policy.approval import HeadlessApprover
from agent_cli.policy.gate import PolicyGate
from agent_cli.subagent.profile import SubagentProfile

ISOLATED = "isolated"


def worktree_gate(gate: Gate | None) -> Gate | None:
    if not isinstance(gate, PolicyGate) or gate.permissions.mode != "default":
        return gate
    permissions = gate.permissions
    settings = permissions.settings.model_copy(update={"mode": "accept-edits"})
    return PolicyGate(replace(permissions, settings=settings), gate.hooks, gate.extra)


def isolated_profile(profile: SubagentProfile | None, parent_gate: Gate | None) -> SubagentProfile:
    """`profile` (or the general subagent's) with the worktree's gate."""
    base = profile or SubagentProfile(name=ISOLATED)
    return replace(base, gate=worktree_gate(base.gate or parent_gate))


def decider_for(gate: Gate | None, fallback_mode: str) -> Decider:
    """The parent's approver and mode decide on an isolated subagent's diff."""
    if isinstance(gate, PolicyGate):
        return Decider(gate.permissions.approver, gate.permissions.mode)
    return Decider(HeadlessApprover(), fallback_mode)
