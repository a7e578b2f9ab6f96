"""task: delegate a self-contained piece of work to a subagent and get back a short note.

`concurrent`: several task calls of one round run together (bounded by the runner).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, field_validator

from agent_cli.core.payloads import NoteDisplay
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult, current_call_id
from agent_cli.subagent.grounding import verified_count
from agent_cli.subagent.note_render import render

if TYPE_CHECKING:
    from agent_cli.subagent.profile import SubagentTypes
    from agent_cli.subagent.runner import SubagentRunner


class TaskInput(ToolInput):
    description: str = Field(
        min_length=1, max_length=120, description="A short label for the task (3-8 words)."
    )
    prompt: str = Field(
        min_length=1,
        description="The complete, self-contained task for the subagent: it sees nothing else "
        "of this conversation.",
    )
    agent_type: str | None = Field(
        default=None,
        max_length=128,
        description="A subagent type from this tool's description; omit it for a general one.",
    )

    @field_validator("description", "prompt")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value


class Task(Tool[TaskInput]):
    name = "task"
    input_model = TaskInput
    concurrent = True

    def __init__(self, runner: SubagentRunner, types: SubagentTypes | None = None) -> None:
        self._runner = runner
        self._types = types

    def description_extra(self) -> str:
        return self._types.listing() if self._types is not None else ""

    def describe_call(self, args: TaskInput) -> str:
        return f"task {args.description}"

    async def run(self, args: TaskInput, ctx: ToolContext) -> ToolResult:
        call_id = current_call_id.get() or "task"
        profile = None
        if args.agent_type:
            profile = self._types.profile(args.agent_type) if self._types else None
            if profile is None:
                known = ", ".join(self._types.names()) if self._types else "none"
                message = f"Unknown agent_type {args.agent_type!r}. Known types: {known}."
                return ToolResult(message, is_error=True, summary=f"task: {message}")
        note = await self._runner.run(args.description, args.prompt, ctx, call_id, profile)
        f = note.figures
        verified, total = verified_count(note.evidence_checks)
        checked = f", evidence {verified}/{total} verified" if total else ""
        summary = (
            f"task {args.description}: {note.status}, {note.confidence} confidence{checked} "
            f"(turns {f.turns}, tool calls {f.tool_calls}, {f.seconds:.1f} s)"
        )
        return ToolResult(
            render(note),
            is_error=note.status != "completed",
            summary=summary,
            display=NoteDisplay(note=note),
        )
