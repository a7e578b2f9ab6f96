"""Background shells from the model's side: `bash(run_in_background)` starting a job, a long
foreground command moved to the background, and the tools `bash_output` and `bash_kill`."""

from __future__ import annotations

import asyncio
import contextlib

from pydantic import Field

from agent_cli.core.outside import spawn
from agent_cli.core.outside.gate import StartGate
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.ext.jobs.board import JobBoard, JobLimitError
from agent_cli.ext.jobs.job import Job
from agent_cli.tools.shell.confined import Confined

NOT_HERE = "Background jobs are not available here: run the command in the foreground."


def _next_steps(job: Job) -> str:
    return (
        f"bash_output with id {job.id} reads what it prints; bash_kill with id {job.id} stops "
        "its whole process group; you will be told when it ends."
    )


async def start_background(
    board: JobBoard | None,
    command: str,
    ctx: ToolContext,
    env: dict[str, str],
    argv: list[str] | None = None,
    confined: Confined | None = None,
) -> ToolResult:
    """A job; what its sandbox holds (its proxy) is let go when it ends."""
    proc: spawn.Popen[bytes] | None = None
    try:
        if board is None:
            return ToolResult(NOT_HERE, is_error=True, summary=f"bash {command} → not started")
        fds = confined.pass_fds if confined is not None else ()
        proc, result = _start(board, command, ctx, env, argv, fds)
    finally:
        if confined is not None:
            confined.started()
            confined.when_ended(proc, settle=True)
    return result


def _start(
    board: JobBoard,
    command: str,
    ctx: ToolContext,
    env: dict[str, str],
    argv: list[str] | None,
    fds: tuple[int, ...] = (),
) -> tuple[spawn.Popen[bytes] | None, ToolResult]:
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


async def move_to_background(
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


class BashOutputInput(ToolInput):
    id: str = Field(min_length=1, description="The job id, e.g. j1.")
    since: int | None = Field(
        default=None,
        ge=0,
        description="Byte offset to read from; default: where the last read stopped.",
    )


class BashOutput(Tool[BashOutputInput]):
    name = "bash_output"
    input_model = BashOutputInput
    read_only = True

    def __init__(self, board: JobBoard) -> None:
        self.board = board

    def describe_call(self, args: BashOutputInput) -> str:
        return f"bash_output {args.id}"

    async def run(self, args: BashOutputInput, ctx: ToolContext) -> ToolResult:
        job = self.board.get(args.id)
        if job is None:
            return _unknown(self.board, args.id, self.name)
        since = job.read_offset if args.since is None else args.since
        limit = max(1_000, ctx.settings.tool_result_limit_chars - 500)
        text, end = job.read(since, limit)
        job.read_offset = max(job.read_offset, end)
        left = job.size() - end
        lines = [f"job {job.id} `{job.command}`: {job.status()}"]
        lines.append(text.rstrip() if text.strip() else "(no new output)")
        more = f"; {left:,} bytes more: call again, or read {job.output}" if left > 0 else ""
        lines.append(f"[read up to byte {end:,}{more}]")
        return ToolResult("\n".join(lines), summary=f"bash_output {job.id} → {len(text):,} chars")


class BashKillInput(ToolInput):
    id: str = Field(min_length=1, description="The job id, e.g. j1.")


class BashKill(Tool[BashKillInput]):
    name = "bash_kill"
    input_model = BashKillInput

    def __init__(self, board: JobBoard) -> None:
        self.board = board

    def describe_call(self, args: BashKillInput) -> str:
        return f"bash_kill {args.id}"

    async def run(self, args: BashKillInput, ctx: ToolContext) -> ToolResult:
        job = self.board.get(args.id)
        if job is None:
            return _unknown(self.board, args.id, self.name)
        if not job.running:
            return ToolResult(f"job {job.id} had already {job.status()}.", summary="bash_kill")
        await self.board.kill(job)
        tail = "\n".join(job.tail(5))
        shown = f"\nLast lines of its output:\n{tail}" if tail else ""
        return ToolResult(
            f"Killed job {job.id} `{job.command}` and its whole process group.{shown}",
            summary=f"bash_kill {job.id} → killed",
        )


def _unknown(board: JobBoard, job_id: str, tool: str) -> ToolResult:
    known = ", ".join(board.jobs) or "none"
    return ToolResult(
        f"No background job {job_id!r}. Jobs of this run: {known}.",
        is_error=True,
        summary=f"{tool}: unknown job",
    )
