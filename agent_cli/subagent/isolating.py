"""The port "isolation" a `task` with `isolation: worktree` asks for: the subagent's work done
in a place of its own (the worktrees extension: a git worktree made from the parent's working
tree), its edits brought back as a diff, applied only when approved."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from agent_cli.core.payloads import Note
    from agent_cli.core.tool_contract import Gate, ToolContext
    from agent_cli.subagent.profile import SubagentProfile

PORT = "isolation"

Work = Callable[["ToolContext", "SubagentProfile"], Awaitable["Note"]]
"""The subagent's run, in the context and with the profile the isolation gives it."""


class IsolationFailed(Exception):
    """No isolated place could be made: the task's error says why."""


@runtime_checkable
class Isolating(Protocol):
    """One per session's `task` tool: the isolated calls of one round are brought back
    together (their diffs checked against each other before any is applied)."""

    async def isolated(
        self,
        description: str,
        ctx: ToolContext,
        profile: SubagentProfile | None,
        gate: Gate | None,
        work: Work,
    ) -> tuple[Note, list[str]]:
        """`work` done in isolation, under a gate made from `gate` (the parent's); its note and
        what became of its edits (lines). Joins this round before its first await; raises
        IsolationFailed when no place could be made."""
        ...
