"""diagnostics: what the language servers report now for given files, or for every file this
session edited (read-only; SPEC §5, issue 38)."""

from __future__ import annotations

from pydantic import Field

from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.fs import PathRefused, writable_path


class DiagnosticsInput(ToolInput):
    paths: list[str] = Field(
        default_factory=list,
        description="Files to check; none: every file edited in this session.",
    )


class Diagnostics(Tool[DiagnosticsInput]):
    name = "diagnostics"
    input_model = DiagnosticsInput
    read_only = True

    def describe_call(self, args: DiagnosticsInput) -> str:
        return f"diagnostics {' '.join(args.paths)}".rstrip()

    async def run(self, args: DiagnosticsInput, ctx: ToolContext) -> ToolResult:
        if ctx.diagnoser is None:
            return ToolResult("No language server is configured or available.", summary="off")
        try:  # the workspace's files: what a language server of this project knows
            paths = [writable_path(ctx, p) for p in args.paths]
        except PathRefused as e:
            return ToolResult(str(e), is_error=True, summary="diagnostics: refused")
        paths = paths or sorted(p for p in ctx.touched if p.is_file())
        if not paths:
            return ToolResult("No file was edited in this session yet; name the files to check.")
        text = await ctx.diagnoser.report(paths)
        return ToolResult(text, summary=f"diagnostics ({counted(len(paths), 'file')})")
