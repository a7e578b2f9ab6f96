"""Isolated subagents (`task` with `isolation: worktree`): each runs in a worktree of its own,
made from the parent's working tree as it stands (uncommitted edits included), so its edits
never reach the parent's checkout while it works. `Isolation` is the port "isolation" the
spine's `task` asks for (agent_cli/subagent/isolating.py).

The isolated `task` calls of one round are one `Round`: a lane's diff is settled only when every
lane of its round has finished, so sibling diffs are checked against each other first
(settle.py) and none is applied half."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent_cli.core.payloads import Note
from agent_cli.core.tool_contract import Gate, ToolContext
from agent_cli.ext.worktrees import worktree as wt
from agent_cli.ext.worktrees.gate import decider_for, isolated_profile
from agent_cli.ext.worktrees.home import Home, home
from agent_cli.ext.worktrees.settle import Decider, Lane, settle
from agent_cli.ext.worktrees.snapshot import working_tree_commit
from agent_cli.subagent.isolating import IsolationFailed, Work
from agent_cli.subagent.profile import SubagentProfile


@dataclass
class Round:
    lanes: list[Lane] = field(default_factory=list)
    running: int = 0
    closed: bool = False
    settled: asyncio.Event = field(default_factory=asyncio.Event)
    where: Home | None = None


class Isolation:
    """One per `task` tool (one per session)."""

    def __init__(self) -> None:
        self._round: Round | None = None

    async def isolated(
        self,
        description: str,
        ctx: ToolContext,
        profile: SubagentProfile | None,
        gate: Gate | None,
        work: Work,
    ) -> tuple[Note, list[str]]:
        """`work` in a worktree of its own under the worktree's gate; its note, and what
        became of its diff once its round is settled."""
        joined, lane = self.join(description)
        decider = decider_for(gate, ctx.settings.permissions.mode)
        chosen = isolated_profile(profile, gate)
        try:
            inside = await self.open(joined, lane, ctx)
        except Exception as e:  # no worktree: the round still settles without this lane
            await self.finish(joined, lane, decider)
            raise IsolationFailed(str(e)) from e
        try:
            note = await work(inside, chosen)
        except BaseException:  # cancelled: nobody is asked, the worktrees are kept
            self.abandon(joined)
            raise
        return note, await self.finish(joined, lane, decider)

    def join(self, description: str) -> tuple[Round, Lane]:
        """Called before the call's first await, so the calls of one round join one Round."""
        if self._round is None or self._round.closed:
            self._round = Round()
        lane = Lane(f"task-{secrets.token_hex(4)}", description)
        self._round.lanes.append(lane)
        self._round.running += 1
        return self._round, lane

    async def open(self, joined: Round, lane: Lane, ctx: ToolContext) -> ToolContext:
        """The lane's worktree; the context the subagent works in (its workspace moved)."""
        where = await asyncio.to_thread(home, ctx.workspace)
        joined.where = where
        base = await asyncio.to_thread(working_tree_commit, where.checkout)
        lane.record = await asyncio.to_thread(wt.create, where.root, lane.name, base)
        inside = Path(lane.record.path) / where.subdir
        workspace = inside if inside.is_dir() else Path(lane.record.path)
        return replace(ctx, workspace=workspace, touched=set(), file_state={})

    async def finish(self, joined: Round, lane: Lane, decider: Decider) -> list[str]:
        """The lane's diff taken; once the whole round is in, the round settled (once); this
        lane's outcome."""
        if lane.record is not None:
            lane.patch = await asyncio.to_thread(wt.diff, lane.record)
        joined.running -= 1
        if joined.running == 0 and not joined.closed:
            joined.closed = True
            try:
                if joined.where is not None:
                    await settle(joined.where, joined.lanes, decider)
            finally:
                joined.settled.set()
        await joined.settled.wait()
        return lane.outcome

    def abandon(self, joined: Round) -> None:
        """A cancelled lane: the round ends unsettled, its worktrees kept for the user."""
        joined.running -= 1
        joined.closed = True
        joined.settled.set()
