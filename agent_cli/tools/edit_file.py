"""edit_file: exact replacement in a file the agent has read, refused if it changed since."""

from __future__ import annotations

import difflib
from pathlib import Path

from pydantic import Field

from agent_cli.core.payloads import DiffDisplay
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.fs import (
    PathRefused,
    content_hash,
    display_path,
    remember,
    replace_file,
    writable_path,
)
from agent_cli.tools.read_file import split_lines

MAX_DIFF_LINES = 200


class EditFileInput(ToolInput):
    path: str = Field(description="File to edit, relative to the workspace or absolute.")
    old_string: str = Field(
        min_length=1, description="Exact text to replace, including whitespace and indentation."
    )
    new_string: str = Field(description="The replacement text (must differ from old_string).")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )


def diff_display(shown: str, before: str, after: str) -> DiffDisplay:
    """A unified diff for the UI (capped: the user needs the gist, not a megabyte)."""
    lines = list(
        difflib.unified_diff(
            split_lines(before), split_lines(after), f"a/{shown}", f"b/{shown}", lineterm=""
        )
    )
    cut = len(lines) - MAX_DIFF_LINES
    if cut > 0:
        lines = [*lines[:MAX_DIFF_LINES], f"... {cut} more diff lines"]
    return DiffDisplay(path=shown, diff="\n".join(lines))


def _error(message: str, path: str) -> ToolResult:
    return ToolResult(message, is_error=True, summary=f"edit_file {path}: error")


class EditFile(Tool[EditFileInput]):
    name = "edit_file"
    input_model = EditFileInput

    def describe_call(self, args: EditFileInput) -> str:
        return f"edit_file {args.path}"

    def preview(self, args: EditFileInput, ctx: ToolContext) -> str:
        """The diff the edit would make; "" when it would fail (its result will say why)."""
        try:
            path = writable_path(ctx, args.path)
            text = path.read_bytes().decode("utf-8")
        except (PathRefused, OSError, UnicodeDecodeError):
            return ""
        count, after = replace_text(text, args.old_string, args.new_string)
        if count == 0 or (count > 1 and not args.replace_all):
            return ""
        return diff_display(display_path(ctx, path), text, after).diff

    def precheck(self, args: EditFileInput, ctx: ToolContext) -> ToolResult | None:
        """Every way the edit fails before writing (not read, changed since, old_string not
        there or not unique): known before anyone is asked about it."""
        planned = _planned(args, ctx)
        return planned if isinstance(planned, ToolResult) else None

    async def run(self, args: EditFileInput, ctx: ToolContext) -> ToolResult:
        planned = _planned(args, ctx)
        if isinstance(planned, ToolResult):
            return planned
        from agent_cli.tools.after_edit import checked  # the first edit imports it

        path, text, new_text, count = planned
        return await checked(_write(path, text, new_text, count, ctx), path, ctx)


def _planned(args: EditFileInput, ctx: ToolContext) -> tuple[Path, str, str, int] | ToolResult:
    """(path, text now, text after, replacements), or the error the edit ends with."""
    try:
        path = writable_path(ctx, args.path)
    except PathRefused as e:
        return _error(str(e), args.path)
    data_or_error = _read_checked(path, args.path, ctx)
    if isinstance(data_or_error, ToolResult):
        return data_or_error
    text = data_or_error
    if args.old_string == args.new_string:
        return _error("old_string and new_string are the same; nothing to change.", args.path)
    count, new_text = replace_text(text, args.old_string, args.new_string)
    if count == 0:
        return _error(
            f"old_string was not found in {args.path}. It must match exactly, including "
            "whitespace and indentation; read the file again and copy the text.",
            args.path,
        )
    if count > 1 and not args.replace_all:
        return _error(
            f"old_string occurs {count} times in {args.path}. Include more surrounding "
            "lines to make it unique, or set replace_all to true.",
            args.path,
        )
    return path, text, new_text, count


def replace_text(text: str, old: str, new: str) -> tuple[int, str]:
    """Occurrences of `old`, and `text` with each replaced. read_file does not show the \\r of
    a CRLF file, so there the strings' line breaks are taken as CRLF (written back as CRLF)."""
    crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    if crlf and "\r" not in old and "\r" not in new:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    return text.count(old), text.replace(old, new)


def _read_checked(path: Path, raw: str, ctx: ToolContext) -> str | ToolResult:
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "does not exist"
        return _error(f"{raw} {what}; edit_file changes existing files (use write_file).", raw)
    data = path.read_bytes()
    seen = ctx.file_state.get(path)
    if seen is None:
        return _error(f"Read {raw} with read_file before editing it.", raw)
    if seen != content_hash(data):
        return _error(
            f"{raw} changed on disk since you last read it. Read it again with read_file, "
            "then make the edit against the current content.",
            raw,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _error(f"{raw} is not UTF-8 text; edit_file cannot change it.", raw)


def _write(path: Path, before: str, after: str, count: int, ctx: ToolContext) -> ToolResult:
    data = after.encode("utf-8")
    try:
        replace_file(path, data)
    except OSError as e:
        return _error(f"Could not write {path}: {e.strerror or e}", str(path))
    remember(ctx, path, data, written=True)
    shown = display_path(ctx, path)
    what = f"{count} replacements" if count > 1 else "1 replacement"
    return ToolResult(
        f"Edited {shown}: {what}.",
        summary=f"edit_file {shown} ({what})",
        display=diff_display(shown, before, after),
    )
