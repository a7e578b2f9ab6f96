"""What bash asks of background jobs: the port "jobs" (a Protocol of its own: whichever
extension provides it), through which `run_in_background` starts a job and a long foreground
command moves off the turn. Without it bash runs everything in the foreground."""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.tools.shell.confined import Confined

if TYPE_CHECKING:
    from agent_cli.core.outside.groups import Shell

NOT_HERE = "Background jobs are not available here: run the command in the foreground."


@runtime_checkable
class Background(Protocol):
    @property
    def move_after_s(self) -> float | None:
        """A foreground command still running after this many seconds becomes a job."""
        ...

    def foreground(self, pid: int) -> AbstractContextManager[asyncio.Event]:
        """Held while the foreground command (the leader of group `pid`) runs: the event is
        set when the user asks to move it."""
        ...

    def start(
        self,
        command: str,
        ctx: ToolContext,
        env: dict[str, str],
        argv: list[str] | None,
        fds: tuple[int, ...],
    ) -> tuple[Shell | None, ToolResult]:
        """`argv` (the shell, maybe confined) started as a job, inheriting `fds`."""
        ...

    async def move(
        self,
        proc: asyncio.subprocess.Process,
        reader: asyncio.Future[None],
        head: bytearray,
        command: str,
        ctx: ToolContext,
        waited_s: float,
    ) -> ToolResult | None:
        """The running foreground command as a job; None when no job may start now."""
        ...


async def start_background(
    jobs: Background | None,
    command: str,
    ctx: ToolContext,
    env: dict[str, str],
    argv: list[str] | None = None,
    confined: Confined | None = None,
) -> ToolResult:
    """A job; what its sandbox holds (its proxy) is let go when it ends."""
    proc: Shell | None = None
    try:
        if jobs is None:
            return ToolResult(NOT_HERE, is_error=True, summary=f"bash {command} → not started")
        fds = confined.pass_fds if confined is not None else ()
        proc, result = jobs.start(command, ctx, env, argv, fds)
    finally:
        if confined is not None:
            confined.started()
            confined.when_ended(proc, settle=True)
    return result


async def move_to_background(
    jobs: Background,
    proc: asyncio.subprocess.Process,
    reader: asyncio.Future[None],
    head: bytearray,
    command: str,
    ctx: ToolContext,
    waited_s: float,
) -> ToolResult | None:
    """The running foreground command becomes a job; None when no job may start now."""
    return await jobs.move(proc, reader, head, command, ctx, waited_s)
