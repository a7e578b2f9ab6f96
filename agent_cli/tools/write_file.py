"""write_file: create or overwrite a file inside the workspace (parents created)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.edit_file import diff_display
from agent_cli.tools.fs import PathRefused, display_path, remember, replace_file, writable_path


class WriteFileInput(ToolInput):
    path: str = Field(description="File to write, relative to the workspace or absolute.")
    content: str = Field(description="The complete new content of the file.")


class WriteFile(Tool[WriteFileInput]):
    name = "write_file"
    input_model = WriteFileInput

    def describe_call(self, args: WriteFileInput) -> str:
        return f"write_file {args.path}"

    def preview(self, args: WriteFileInput, ctx: ToolContext) -> str:
        try:
            path = writable_path(ctx, args.path)
        except PathRefused:
            return ""
        before = _old_text(path) if path.is_file() else None
        return diff_display(display_path(ctx, path), before or "", args.content).diff

    async def run(self, args: WriteFileInput, ctx: ToolContext) -> ToolResult:
        try:
            path = writable_path(ctx, args.path)
        except PathRefused as e:
            return ToolResult(str(e), is_error=True, summary=f"write_file {args.path}: refused")
        if path.is_dir():
            return ToolResult(f"{args.path} is a directory; give a file path.", is_error=True)
        if path.exists() and not path.is_file():  # writing a FIFO would block the turn
            return ToolResult(f"{args.path} is not a regular file.", is_error=True)
        before = _old_text(path)
        data = args.content.encode("utf-8")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            replace_file(path, data)
        except OSError as e:
            return ToolResult(f"Could not write {args.path}: {e.strerror or e}", is_error=True)
        remember(ctx, path, data, written=True)
        shown = display_path(ctx, path)
        lines = args.content.count("\n") + (0 if args.content.endswith("\n") else 1)
        lines = lines if args.content else 0
        verb = "Created" if before is None else "Overwrote"
        result = ToolResult(
            f"{verb} {shown} ({counted(lines, 'line')}, {len(data):,} bytes).",
            summary=f"write_file {shown} ({verb.lower()}, {counted(lines, 'line')})",
            display=diff_display(shown, before or "", args.content),
        )
        from agent_cli.tools.after_edit import checked  # the first write imports it

        return await checked(result, path, ctx)


def _old_text(path: Path) -> str | None:
    if not path.is_file():
        return None
    return path.read_bytes().decode("utf-8", errors="replace")
