"""read_file: numbered lines (`cat -n` style), with offset and limit."""

from __future__ import annotations

import hashlib

from pydantic import Field

from agent_cli.tools.base import Tool, ToolContext, ToolInput, ToolResult

MAX_LINE_CHARS = 2_000


class ReadFileInput(ToolInput):
    path: str = Field(description="File to read, relative to the workspace or absolute.")
    offset: int | None = Field(default=None, ge=1, description="First line to read (1-based).")
    limit: int | None = Field(default=None, ge=1, description="Lines to read (default 2,000).")


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ReadFile(Tool[ReadFileInput]):
    name = "read_file"
    input_model = ReadFileInput
    read_only = True

    def describe_call(self, args: ReadFileInput) -> str:
        return f"read_file {args.path}"

    async def run(self, args: ReadFileInput, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(args.path)
        if not path.exists():
            return ToolResult(f"File not found: {args.path}", is_error=True)
        if path.is_dir():
            return ToolResult(f"{args.path} is a directory; use glob to list it.", is_error=True)
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            return ToolResult(f"{args.path} is a binary file; read_file shows text only.", True)
        ctx.file_state[path] = content_hash(data)
        lines = data.decode("utf-8", errors="replace").splitlines()
        start = (args.offset or 1) - 1
        limit = args.limit or 2_000
        shown = lines[start : start + limit]
        numbered = [
            f"{n:>6}\t{line[:MAX_LINE_CHARS]}" for n, line in enumerate(shown, start=start + 1)
        ]
        text = "\n".join(numbered) if numbered else "(no lines in that range)"
        if start + limit < len(lines):
            rest, nxt = len(lines) - start - limit, start + limit + 1
            text += f"\n\n[{rest} more lines; continue with offset={nxt}]"
        summary = f"read_file {args.path} ({len(shown)} lines)"
        return ToolResult(text, summary=summary)
