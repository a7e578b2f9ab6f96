"""submit_note: how a subagent hands in its structured note. Offered only to subagents; the
runner gives each run its own instance, so the note reaches that run and no other."""

from __future__ import annotations

from collections.abc import Callable

from agent_cli.core.tool_contract import Tool, ToolContext, ToolResult
from agent_cli.subagent.note import NoteBody


class SubmitNote(Tool[NoteBody]):
    name = "submit_note"
    input_model = NoteBody
    lenient_input = True

    def __init__(self, on_submit: Callable[[NoteBody], None]) -> None:
        self._on_submit = on_submit

    def describe_call(self, args: NoteBody) -> str:
        return f"submit_note ({args.confidence})"

    async def run(self, args: NoteBody, ctx: ToolContext) -> ToolResult:
        self._on_submit(args)
        return ToolResult("Note received. Your work is done.", summary=self.describe_call(args))
