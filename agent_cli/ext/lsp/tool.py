"""What `diagnostics` does (the tool is declared in the extension's __init__): what the language
servers report now for given files, or for every file this session edited (read-only; SPEC §5,
issue 38)."""

from __future__ import annotations

from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import ToolContext, ToolResult
from agent_cli.tools.fs import PathRefused, writable_path


async def diagnostics(named: list[str], ctx: ToolContext) -> ToolResult:
    if ctx.diagnoser is None:
        return ToolResult("No language server is configured or available.", summary="off")
    try:  # the workspace's files: what a language server of this project knows
        paths = [writable_path(ctx, p) for p in named]
    except PathRefused as e:
        return ToolResult(str(e), is_error=True, summary="diagnostics: refused")
    paths = paths or sorted(p for p in ctx.touched if p.is_file())
    if not paths:
        return ToolResult("No file was edited in this session yet; name the files to check.")
    text = await ctx.diagnoser.report(paths)
    return ToolResult(text, summary=f"diagnostics ({counted(len(paths), 'file')})")
