"""What the model's tools for its background jobs do (the tools themselves are declared in the
extension's __init__): `bash_output` reads what one printed since the last read, `bash_kill`
stops its whole process group."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.core.tool_contract import ToolContext, ToolResult

if TYPE_CHECKING:
    from agent_cli.ext.jobs.board import JobBoard
    from agent_cli.ext.jobs.service import JobsService


def read_output(jobs: JobsService, job_id: str, since: int | None, ctx: ToolContext) -> ToolResult:
    """`bash_output`: from `since` (None: where the last read stopped), within the result limit."""
    job = jobs.board.get(job_id)
    if job is None:
        return _unknown(jobs.board, job_id, "bash_output")
    since = job.read_offset if since is None else since
    limit = max(1_000, ctx.settings.tool_result_limit_chars - 500)
    text, end = job.read(since, limit)
    job.read_offset = max(job.read_offset, end)
    left = job.size() - end
    lines = [f"job {job.id} `{job.command}`: {job.status()}"]
    lines.append(text.rstrip() if text.strip() else "(no new output)")
    more = f"; {left:,} bytes more: call again, or read {job.output}" if left > 0 else ""
    lines.append(f"[read up to byte {end:,}{more}]")
    return ToolResult("\n".join(lines), summary=f"bash_output {job.id} → {len(text):,} chars")


async def kill(jobs: JobsService, job_id: str) -> ToolResult:
    """`bash_kill`: the job's whole process group."""
    job = jobs.board.get(job_id)
    if job is None:
        return _unknown(jobs.board, job_id, "bash_kill")
    if not job.running:
        return ToolResult(f"job {job.id} had already {job.status()}.", summary="bash_kill")
    await jobs.board.kill(job)
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
