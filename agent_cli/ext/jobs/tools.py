"""The model's tools for its background jobs: `bash_output` reads what one printed since the
last read, `bash_kill` stops its whole process group."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult

if TYPE_CHECKING:
    from agent_cli.ext.jobs.board import JobBoard
    from agent_cli.ext.jobs.service import JobsService


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

    def __init__(self, jobs: JobsService) -> None:
        self.jobs = jobs  # the run's board is made when a job starts, or a tool is called

    def describe_call(self, args: BashOutputInput) -> str:
        return f"bash_output {args.id}"

    async def run(self, args: BashOutputInput, ctx: ToolContext) -> ToolResult:
        job = self.jobs.board.get(args.id)
        if job is None:
            return _unknown(self.jobs.board, args.id, self.name)
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

    def __init__(self, jobs: JobsService) -> None:
        self.jobs = jobs  # the run's board is made when a job starts, or a tool is called

    def describe_call(self, args: BashKillInput) -> str:
        return f"bash_kill {args.id}"

    async def run(self, args: BashKillInput, ctx: ToolContext) -> ToolResult:
        job = self.jobs.board.get(args.id)
        if job is None:
            return _unknown(self.jobs.board, args.id, self.name)
        if not job.running:
            return ToolResult(f"job {job.id} had already {job.status()}.", summary="bash_kill")
        await self.jobs.board.kill(job)
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
