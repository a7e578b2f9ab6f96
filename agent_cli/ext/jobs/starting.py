"""A job started: `bash(run_in_background)`'s, or a long foreground command moved off the
turn (bash asks through its port "jobs"; the service hands it to these with the run's board)."""

from __future__ import annotations

import asyncio
import contextlib

from agent_cli.core.outside import spawn
from agent_cli.core.outside.gate import StartGate
from agent_cli.core.outside.groups import Shell
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.ext.jobs.board import JobBoard, JobLimitError
from agent_cli.ext.jobs.job import Job


def _next_steps(job: Job) -> str:
    return (
        f"bash_output with id {job.id} reads what it prints; bash_kill with id {job.id} stops "
        "its whole process group; you will be told when it ends."
    )


def start(
    board: JobBoard,
    command: str,
    ctx: ToolContext,
    env: dict[str, str],
    argv: list[str] | None,
    fds: tuple[int, ...] = (),
) -> tuple[Shell | None, ToolResult]:
    try:
        slot = board.reserve(ctx.session_id)
    except JobLimitError as e:
        return None, ToolResult(
            f"Not started: {e}.", is_error=True, summary=f"bash {command} → limit"
        )
    gate = StartGate()  # the command waits until the watcher knows its group
    try:
        with slot.output.open("wb") as out:
            proc = spawn.popen(
                gate.wrap(argv or ["bash", "-c", command]),
                pass_fds=(*gate.pass_fds, *fds),
                cwd=ctx.workspace,
                env=env,
                stdin=spawn.DEVNULL,
                stdout=out,
                stderr=spawn.STDOUT,
                start_new_session=True,
            )
    except OSError as e:
        gate.close()
        failed = ToolResult(f"Could not start it: {e}", is_error=True, summary=f"bash {command}")
        return None, failed
    gate.spawned()
    job = board.register(slot, proc, command, ctx.inbox)
    gate.open()
    return proc, ToolResult(
        f"Started in the background as job {job.id} (pid {job.pid}); its output goes to "
        f"{job.output}. {_next_steps(job)}",
        summary=f"bash {command} → background {job.id}",
    )


async def move(
    board: JobBoard,
    proc: asyncio.subprocess.Process,
    reader: asyncio.Future[None],
    head: bytearray,
    command: str,
    ctx: ToolContext,
    waited_s: float,
) -> ToolResult | None:
    """The running foreground command becomes a job; None when no job may start now."""
    try:
        slot = board.reserve(ctx.session_id)
    except JobLimitError:
        return None
    reader.cancel()  # what it read is in `head`; the board's pump copies the rest
    with contextlib.suppress(asyncio.CancelledError):
        await reader
    job = board.register(slot, proc, command, ctx.inbox, bytes(head))
    so_far = head.decode("utf-8", errors="replace").rstrip()
    shown = f"\n\nIts output so far:\n{so_far}" if so_far else ""
    return ToolResult(
        f"Still running after {waited_s:.0f} s, so it was moved to the background as job "
        f"{job.id} (pid {job.pid}) instead of being killed. {_next_steps(job)}{shown}",
        summary=f"bash {command} → moved to background {job.id}",
    )
