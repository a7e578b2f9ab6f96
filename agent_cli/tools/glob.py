"""glob: files matching a pattern, newest first, honouring .gitignore (via `rg --files`)."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from pydantic import Field

from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.tools.fs import display_path

MAX_RESULTS = 500


class GlobInput(ToolInput):
    pattern: str = Field(
        min_length=1,
        description="Pattern relative to `path`, e.g. '**/*.py' or 'src/*.{ts,tsx}'. '*' stays "
        "within one directory; '**/' spans any number of them.",
    )
    path: str | None = Field(
        default=None, description="Directory to search (default: the workspace)."
    )


def _translate(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        c = pattern[i]
        end = pattern.find("]" if c == "[" else "}", i + 2 if c == "[" else i + 1)
        if pattern.startswith("**", i):
            out.append(".*")
            i += 1
        elif c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and end != -1:
            body = pattern[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end
        elif c == "{" and end != -1:
            parts = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(_translate(p) for p in parts) + ")")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_glob(pattern: str) -> re.Pattern[str]:
    return re.compile(_translate(pattern), re.DOTALL)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _error(message: str) -> ToolResult:
    return ToolResult(message, is_error=True, summary="glob: error")


class Glob(Tool[GlobInput]):
    name = "glob"
    input_model = GlobInput
    read_only = True

    def describe_call(self, args: GlobInput) -> str:
        return f"glob {args.pattern}" + (f" in {args.path}" if args.path else "")

    async def run(self, args: GlobInput, ctx: ToolContext) -> ToolResult:
        parts = PurePosixPath(args.pattern).parts
        if args.pattern.startswith(("/", "~")) or ".." in parts:
            return _error("pattern must be relative; put the directory to search in `path`.")
        root = ctx.resolve(args.path or ".")
        if not root.is_dir():
            return _error(f"{args.path} is not a directory.")
        from agent_cli.tools.rg import RgMissing, base_args, run_rg, strip_dot  # the first glob

        try:
            run = await run_rg([*base_args(ctx, root), "--files"], root)
        except RgMissing as e:
            return _error(str(e))
        except TimeoutError:
            return _error("glob took too long; narrow `path` or the pattern.")
        if run.code not in (0, 1):
            return _error(f"glob failed: {run.stderr.strip()}")
        regex = compile_glob(args.pattern)
        rels = [strip_dot(line) for line in run.stdout.splitlines()]
        found = [root / rel for rel in rels if regex.fullmatch(rel)]
        found.sort(key=_mtime, reverse=True)
        return _listing(args, ctx, found)


def _listing(args: GlobInput, ctx: ToolContext, found: list[Path]) -> ToolResult:
    where = args.path or "the workspace"
    if not found:
        deeper = "/" not in args.pattern
        hint = f" (to search subdirectories too, use **/{args.pattern})" if deeper else ""
        message = f"No files match {args.pattern} in {where}{hint}."
        return ToolResult(message, summary="glob: 0 files")
    lines = [display_path(ctx, p) for p in found[:MAX_RESULTS]]
    if len(found) > MAX_RESULTS:
        lines.append(f"[{len(found) - MAX_RESULTS} more files; narrow the pattern or path]")
    return ToolResult(
        "\n".join(lines), summary=f"glob {args.pattern} ({counted(len(found), 'file')})"
    )
