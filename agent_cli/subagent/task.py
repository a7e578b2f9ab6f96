"""task: delegate a self-contained piece of work to a subagent and get back a short note.

`concurrent`: several task calls of one round run together (bounded by the runner).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator

from agent_cli.core.payloads import Note, NoteDisplay
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult, current_call_id

if TYPE_CHECKING:
    from agent_cli.subagent.isolating import Isolating
    from agent_cli.subagent.profile import SubagentProfile, SubagentTypes
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
    isolation: Literal["worktree"] | None = Field(
        default=None,
        description="'worktree': the subagent works in a git worktree of its own, made from "
        "your working tree; its edits come back as a diff, applied only when approved. "
        "Sibling diffs that overlap are named and none of them is applied.",
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

    def __init__(
        self,
        runner: SubagentRunner | Callable[[], SubagentRunner],
        types: SubagentTypes | None = None,
        isolation: Callable[[str], object | None] = lambda name: None,
    ) -> None:
        """`runner`: the runner, or what makes it when a task first runs (a session that
        delegates nothing never imports it). `isolation`: the session's ports by name, asked
        for the port "isolation" (subagent/isolating.py, imported then) the first time a task
        wants it; None when no extension provides it."""
        self._make_runner = runner if callable(runner) else lambda: runner
        self._made: SubagentRunner | None = None
        self._types = types
        self._ask_isolation = isolation
        self._isolation: Isolating | None = None

    @property
    def _runner(self) -> SubagentRunner:
        """Made once, before any await: the calls of one round share it."""
        if self._made is None:
            self._made = self._make_runner()
        return self._made

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
        if args.isolation == "worktree" or (profile is not None and profile.isolation):
            return await self._isolated(args, ctx, call_id, profile)
        note = await self._runner.run(args.description, args.prompt, ctx, call_id, profile)
        return self._result(args, note)

    async def _isolated(
        self, args: TaskInput, ctx: ToolContext, call_id: str, profile: SubagentProfile | None
    ) -> ToolResult:
        """In a place of its own; the note comes back with what became of its edits."""
        from agent_cli.subagent.isolating import IsolationFailed

        isolation = self._isolating()
        if isolation is None:
            message = "isolation worktree is not available here (no worktrees extension)"
            return ToolResult(message, is_error=True, summary=f"task: {message}")
        parent_gate = self._runner.tools.gate if self._runner.tools is not None else None

        async def work(inside: ToolContext, chosen: SubagentProfile) -> Note:
            return await self._runner.run(args.description, args.prompt, inside, call_id, chosen)

        try:
            note, outcome = await isolation.isolated(
                args.description, ctx, profile, parent_gate, work
            )
        except IsolationFailed as e:
            message = f"isolation worktree: {e}"
            return ToolResult(message, is_error=True, summary=f"task: {message}")
        result = self._result(args, note)
        result.content = "\n".join([str(result.content), "", *outcome])
        result.summary += f"; {outcome[0]}" if outcome else ""
        return result

    def _isolating(self) -> Isolating | None:
        """The port, asked for once (before any await: the calls of one round share it)."""
        from agent_cli.subagent.isolating import PORT, Isolating

        if self._isolation is None:
            port = self._ask_isolation(PORT)
            self._isolation = port if isinstance(port, Isolating) else None
        return self._isolation

    def _result(self, args: TaskInput, note: Note) -> ToolResult:
        from agent_cli.subagent.grounding import verified_count
        from agent_cli.subagent.note_render import render

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
