"""A round of isolated subagents brought back: diffs that overlap a sibling's are named and
kept in their worktrees (none applied half); each other diff is applied, discarded or kept.

Who decides: the user, through the approval port (in `agent chat` the approval view: apply /
keep the worktree / discard); with nobody to ask (`agent run`), the permission mode: applied
when it allows edits (accept-edits, bypass), else kept. A diff that no longer applies cleanly
to the checkout is kept, its files named."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from agent_cli.ext.worktrees import worktree as wt
from agent_cli.ext.worktrees.home import Home
from agent_cli.ext.worktrees.overlap import overlaps
from agent_cli.policy.approval import ApprovalRequest, Approver, HeadlessApprover

Choice = Literal["apply", "discard", "keep"]
EDITING_MODES = ("accept-edits", "bypass")
ANSWERED: dict[str, Choice] = {"allow": "apply", "always": "apply", "project": "apply"}
ANSWERED["discard"] = "discard"


@dataclass(frozen=True)
class Decider:
    """Who says what becomes of a diff: the parent's approver, and its permission mode."""

    approver: Approver
    mode: str

    @property
    def nobody(self) -> bool:
        inner = self.approver
        while hasattr(inner, "inner"):  # an approver wrapped by hooks
            inner = inner.inner
        return isinstance(inner, HeadlessApprover)


@dataclass
class Lane:
    """One isolated subagent: its worktree, its diff, what its tool result ends with."""

    name: str  # the worktree's: task-<hex>
    description: str
    record: wt.WorktreeRecord | None = None
    patch: str = ""
    outcome: list[str] = field(default_factory=list)


async def settle(where: Home, lanes: Sequence[Lane], decider: Decider) -> None:
    changed = {lane.name: lane.patch for lane in lanes if lane.patch.strip()}
    clashes = overlaps(changed)
    for lane in lanes:
        if lane.record is None:
            continue
        named = [c.text() for c in clashes if lane.name in (c.first, c.second)]
        if lane.name not in changed:
            await _remove(where, lane)
            lane.outcome = [f"Worktree {lane.name}: no changes; removed."]
        elif named:
            lane.outcome = [
                f"Diff NOT applied: it overlaps a sibling's: {'; '.join(named)}.",
                *_kept(lane),
            ]
        else:
            await _decide(where, lane, decider)


async def _decide(where: Home, lane: Lane, decider: Decider) -> None:
    choice = await choose(lane, decider)
    files = ", ".join(wt.files_of(lane.patch))
    if choice == "discard":
        await _remove(where, lane)
        lane.outcome = [f"Diff discarded by the user ({files}); worktree {lane.name} removed."]
        return
    if choice == "keep":
        lane.outcome = [
            "Diff not applied (the user kept it, or edits are not allowed).",
            *_kept(lane),
        ]
        return
    clashing = await asyncio.to_thread(wt.conflicts, where.checkout, lane.patch)
    if clashing:
        lane.outcome = [
            f"Diff NOT applied: it no longer applies cleanly to {', '.join(clashing)}.",
            *_kept(lane),
        ]
        return
    await asyncio.to_thread(wt.apply, where.checkout, lane.patch)
    await _remove(where, lane)
    lane.outcome = [f"Diff applied to the checkout: {files}; worktree {lane.name} removed."]


async def choose(lane: Lane, decider: Decider) -> Choice:
    if decider.nobody:  # agent run: the permission mode decides
        return "apply" if decider.mode in EDITING_MODES else "keep"
    files = wt.files_of(lane.patch)
    request = ApprovalRequest(
        tool="task",
        summary=f"the diff of subagent '{lane.description}' ({', '.join(files)}) to your checkout",
        pattern="",
        allow_hint="--permission-mode accept-edits",
        preview=lane.patch,
        rule=f"it waits in worktree {lane.name}",
        reusable=False,
        kind="diff",
    )
    answer = await decider.approver.approve(request)
    return ANSWERED.get(answer, "keep") if isinstance(answer, str) else "keep"


def _kept(lane: Lane) -> list[str]:
    n = lane.name
    return [
        f"Kept in worktree {n} (branch agent/{n}): agent worktrees diff {n} | "
        f"agent worktrees merge {n} | agent worktrees remove {n}."
    ]


async def _remove(where: Home, lane: Lane) -> None:
    if lane.record is not None:
        await asyncio.to_thread(wt.remove, where.root, lane.record)
