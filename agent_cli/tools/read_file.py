"""read_file: numbered lines (`cat -n` style), with offset and limit."""

from __future__ import annotations

import errno
import io
import stat
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from pydantic import Field

from agent_cli.core.files.line_views import VIEW_HEAD, ViewBroken, read_view, starts_a_view
from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.fs import content_hash, display_path

if TYPE_CHECKING:
    from agent_cli.tools.file_window import Window

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


class ReadFile(Tool[ReadFileInput]):
    name = "read_file"
    input_model = ReadFileInput
    read_only = True

    def describe_call(self, args: ReadFileInput) -> str:
        return f"read_file {args.path}"

    async def run(self, args: ReadFileInput, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(args.path)
        if refused := _refusal(path, args.path):
            return refused
        # the first read imports its reader
        from agent_cli.tools.file_window import read_window
        from agent_cli.tools.image_file import image_kind

        start = (args.offset or 1) - 1
        limit = args.limit or DEFAULT_LIMIT
        try:
            with _opened(path, ctx) as f:
                if kind := image_kind(f.read(16)):
                    return _image(path, kind, display_path(ctx, path))
                f.seek(0)
                window = read_window(f, start, limit, MAX_LINE_CHARS)
        except OSError as e:
            return _error(f"Could not read {args.path}: {e.strerror or e}", args.path)
        except ViewBroken as e:
            return _error(f"Could not read {args.path}: {e}.", args.path)
        if window.binary:
            return _error(f"{args.path} is a binary file; read_file shows text only.", args.path)
        ctx.file_state[path] = window.digest  # what edit_file's guard compares
        shown_path = display_path(ctx, path)
        if not window.total:
            return ToolResult(f"({shown_path} is empty)", summary=f"read_file {shown_path} (empty)")
        if start >= window.total:
            return _error(
                f"offset {start + 1} is past the end of {args.path}"
                f" ({counted(window.total, 'line')}).",
                args.path,
            )
        text = number_window(window, start + 1)
        if start + limit < window.total:
            rest, nxt = window.total - start - limit, start + limit + 1
            text += f"\n\n[{rest} more lines; continue with offset={nxt}]"
        shown = len(window.lines)
        return ToolResult(text, summary=f"read_file {shown_path} ({counted(shown, 'line')})")


# what Path.exists() reads as "not there" (it raises on any other error, and so does this)
_MISSING = {errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP}


def _refusal(path: Path, raw: str) -> ToolResult | None:
    """One stat answers all three questions (exists, is_dir, is_file each made its own)."""
    try:
        mode = path.stat().st_mode
    except OSError as e:
        if e.errno not in _MISSING:
            raise
        mode = None
    except ValueError:  # a NUL in the path
        mode = None
    if mode is None:
        return _error(f"File not found: {raw} (resolved to {path}).", raw)
    if stat.S_ISDIR(mode):
        return _error(f"{raw} is a directory; use glob to list it.", raw)
    if not stat.S_ISREG(mode):  # a FIFO or a device would block the turn, or never end
        return _error(f"{raw} is not a regular file; read_file reads files.", raw)
    return None


def _opened(path: Path, ctx: ToolContext) -> BinaryIO:
    """The file, or the text it stands for when it is a view of the transcript (an archive, a
    saved output: core/files/line_views.py). Opened once: most files read are not views."""
    f = path.open("rb")
    if not starts_a_view(f.read(VIEW_HEAD)):
        f.seek(0)
        return f
    f.close()
    viewed = read_view(path, ctx.paths.transcripts)
    return path.open("rb") if viewed is None else io.BytesIO(viewed.encode("utf-8"))


def _image(path: Path, kind: str, shown: str) -> ToolResult:
    """An image file: the model sees it (one image block), downscaled when too large."""
    from agent_cli.tools.image_file import ImageRefused, load_image

    try:
        image = load_image(path, kind)
    except ImageRefused as e:
        return _error(f"{shown} is an image that cannot be sent: {e}.", shown)
    except OSError as e:
        return _error(f"Could not read {shown}: {e.strerror or e}", shown)
    return ToolResult(
        f"Image {shown}: {image.note}.",
        summary=f"read_file {shown} (image, {image.note})",
        blocks=[image.block],
    )


def number_window(window: Window, first: int) -> str:
    return "\n".join(
        [
            f"{n:>6}\t{line} [... {cut} more characters]" if cut > 0 else f"{n:>6}\t{line}"
            for n, (line, cut) in enumerate(zip(window.lines, window.cut, strict=True), first)
        ]
    )
