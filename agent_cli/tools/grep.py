"""grep: search file contents with ripgrep; files / content / count modes. What runs ripgrep
(tools/rg.py) is imported by the first search."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.fs import display_path

OutputMode = Literal["content", "files", "count"]


class GrepInput(ToolInput):
    pattern: str = Field(min_length=1, description="Regular expression (Rust regex syntax).")
    path: str | None = Field(
        default=None, description="File or directory to search (default: the workspace)."
    )
    glob: str | None = Field(
        default=None, description="Only files matching this glob, e.g. '*.py' or '*.{ts,tsx}'."
    )
    output_mode: OutputMode = Field(
        default="files",
        description="files: paths of matching files; content: matching lines with line "
        "numbers; count: matches per file.",
    )
    ignore_case: bool = Field(default=False, description="Case-insensitive search.")
    context: int | None = Field(
        default=None, ge=0, le=20, description="Lines of context around each match (content)."
    )


MODE_ARGS: dict[str, list[str]] = {
    "files": ["--files-with-matches"],
    "content": ["--line-number", "--no-heading", "--with-filename"],
    "count": ["--count", "--with-filename"],
}


def _error(message: str) -> ToolResult:
    return ToolResult(message, is_error=True, summary="grep: error")


def rg_args(args: GrepInput, ctx: ToolContext, root: Path) -> list[str]:
    from agent_cli.tools.rg import base_args

    out = [*base_args(ctx, root), "--null", "--sort", "path", *MODE_ARGS[args.output_mode]]
    out += ["--max-columns", "500", "--max-columns-preview"]
    if args.ignore_case:
        out.append("--ignore-case")
    if args.context and args.output_mode == "content":
        out += ["--context", str(args.context)]
    if args.glob:
        out += ["--glob", args.glob]
    return [*out, "--regexp", args.pattern]


class Grep(Tool[GrepInput]):
    name = "grep"
    input_model = GrepInput
    read_only = True

    def describe_call(self, args: GrepInput) -> str:
        return f"grep {args.pattern}" + (f" in {args.path}" if args.path else "")

    async def run(self, args: GrepInput, ctx: ToolContext) -> ToolResult:
        target = ctx.resolve(args.path or ".")
        if not target.exists():
            return _error(f"{args.path} does not exist.")
        cwd, where = (target, ".") if target.is_dir() else (target.parent, target.name)
        from agent_cli.tools.rg import RgMissing, run_rg

        try:
            run = await run_rg([*rg_args(args, ctx, cwd), "--", where], cwd)
        except RgMissing as e:
            return _error(str(e))
        except TimeoutError:
            return _error("grep took too long; narrow `path` or use `glob`.")
        if run.code == 1 or (run.code == 0 and not run.stdout.strip()):
            return ToolResult(f"No matches for {args.pattern}.", summary="grep: no matches")
        if run.code != 0 and not run.stdout.strip():
            return _error(f"grep failed: {run.stderr.strip()}")
        lines = _lines(run.stdout, cwd, ctx, args.output_mode)
        text = "\n".join(lines)
        if args.output_mode == "count":
            total = sum(int(line.rsplit(": ", 1)[1]) for line in lines)
            text += f"\n\n{counted(total, 'match', 'matches')} in {counted(len(lines), 'file')}"
        if run.code != 0:
            text += f"\n\n[rg reported: {run.stderr.strip().splitlines()[0]}]"
        unit = "lines" if args.output_mode == "content" else "files"
        summary = f"grep {args.pattern} ({len(lines)} {unit})"
        return ToolResult(text, summary=summary)


def _lines(stdout: str, cwd: Path, ctx: ToolContext, mode: str) -> list[str]:
    """rg ends each path with NUL (paths may hold ':'); show paths as the model would type them."""
    if mode == "files":
        return [_shown(rel, cwd, ctx) for rel in stdout.split("\0") if rel.strip()]
    out = []
    for line in stdout.splitlines():
        if "\0" not in line:  # the `--` between context groups
            out.append(line)
            continue
        rel, rest = line.split("\0", 1)
        out.append(f"{_shown(rel, cwd, ctx)}{': ' if mode == 'count' else ':'}{rest}")
    return out


def _shown(rel: str, cwd: Path, ctx: ToolContext) -> str:
    from agent_cli.tools.rg import strip_dot

    return display_path(ctx, cwd / strip_dot(rel.strip("\n")))
