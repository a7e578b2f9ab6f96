"""compact: ask for the context to be compacted once every call of this round has its result."""

from __future__ import annotations

from typing import Protocol

from pydantic import Field

from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult


class CompactInput(ToolInput):
    focus: str | None = Field(
        default=None,
        max_length=2_000,
        description="What the summary should keep in particular (optional).",
    )


class CompactTarget(Protocol):
    """Where the request is noted: the session (the loop compacts after the round)."""

    def request_compaction(self, focus: str | None) -> None: ...


class Compact(Tool[CompactInput]):
    name = "compact"
    input_model = CompactInput
    read_only = True  # it changes no file; the compaction itself runs after the round

    def __init__(self, target: CompactTarget) -> None:
        self.target = target

    def describe_call(self, args: CompactInput) -> str:
        return f"compact {args.focus}" if args.focus else "compact"

    async def run(self, args: CompactInput, ctx: ToolContext) -> ToolResult:
        focus = args.focus.strip() if args.focus and args.focus.strip() else None
        self.target.request_compaction(focus)
        about = f" (focus: {focus})" if focus else ""
        return ToolResult(
            f"Compaction requested{about}. It runs once every call of this round has its result; "
            "the next request shows the compacted context.",
            summary=f"compact{about}",
        )
