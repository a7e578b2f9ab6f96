"""What follows a successful edit: the session's diagnoser (language servers, a formatter on
request) checks the file, and the result ends with what it found."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.tools.fs import remember


async def checked(result: ToolResult, path: Path, ctx: ToolContext) -> ToolResult:
    if result.is_error or ctx.diagnoser is None:
        return result
    report = await ctx.diagnoser.after_edit(path)
    if report.formatted:  # the file on disk is the formatter's now: edits match against it
        remember(ctx, path, path.read_bytes(), written=True)
    if not report.text:
        return result
    noun = "problem" if report.problems == 1 else "problems"
    summary = f"{result.summary} · {report.problems} {noun}" if report.problems else result.summary
    return replace(result, content=result.content + report.text, summary=summary)
