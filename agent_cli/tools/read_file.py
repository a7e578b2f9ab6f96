"""read_file: numbered lines (`cat -n` style), with offset and limit."""

from __future__ import annotations

from pydantic import Field

from agent_cli.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.fs import content_hash, display_path, remember

__all__ = ["MAX_LINE_CHARS", "ReadFile", "ReadFileInput", "content_hash"]

MAX_LINE_CHARS = 2_000
DEFAULT_LIMIT = 2_000


class ReadFileInput(ToolInput):
    path: str = Field(description="File to read, relative to the workspace or absolute.")
    offset: int | None = Field(default=None, ge=1, description="First line to read (1-based).")
    limit: int | None = Field(default=None, ge=1, description="Lines to read (default 2,000).")


def _error(message: str, path: str) -> ToolResult:
    return ToolResult(message, is_error=True, summary=f"read_file {path}: error")


def split_lines(text: str) -> list[str]:
    """Lines as grep and `cat -n` count them: split on \\n only (str.splitlines also splits on
    \\f, \\x1c-\\x1e, \\x85, \\u2028...); a CRLF line's \\r is not shown."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def number_lines(lines: list[str], first: int) -> str:
    out = []
    for n, line in enumerate(lines, start=first):
        cut = len(line) - MAX_LINE_CHARS
        text = f"{line[:MAX_LINE_CHARS]} [... {cut} more characters]" if cut > 0 else line
        out.append(f"{n:>6}\t{text}")
    return "\n".join(out)


class ReadFile(Tool[ReadFileInput]):
    name = "read_file"
    input_model = ReadFileInput
    read_only = True

    def describe_call(self, args: ReadFileInput) -> str:
        return f"read_file {args.path}"

    async def run(self, args: ReadFileInput, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(args.path)
        if not path.exists():
            return _error(f"File not found: {args.path} (resolved to {path}).", args.path)
        if path.is_dir():
            return _error(f"{args.path} is a directory; use glob to list it.", args.path)
        if not path.is_file():  # a FIFO or a device would block the turn, or never end
            return _error(f"{args.path} is not a regular file; read_file reads files.", args.path)
        try:
            data = path.read_bytes()
        except OSError as e:
            return _error(f"Could not read {args.path}: {e.strerror or e}", args.path)
        if b"\0" in data[:8192]:
            return _error(f"{args.path} is a binary file; read_file shows text only.", args.path)
        remember(ctx, path, data)
        lines = split_lines(data.decode("utf-8", errors="replace"))
        shown_path = display_path(ctx, path)
        if not lines:
            return ToolResult(f"({shown_path} is empty)", summary=f"read_file {shown_path} (empty)")
        start = (args.offset or 1) - 1
        limit = args.limit or DEFAULT_LIMIT
        if start >= len(lines):
            return _error(
                f"offset {start + 1} is past the end of {args.path} ({len(lines)} lines).",
                args.path,
            )
        shown = lines[start : start + limit]
        text = number_lines(shown, start + 1)
        if start + limit < len(lines):
            rest, nxt = len(lines) - start - limit, start + limit + 1
            text += f"\n\n[{rest} more lines; continue with offset={nxt}]"
        return ToolResult(text, summary=f"read_file {shown_path} ({len(shown)} lines)")
