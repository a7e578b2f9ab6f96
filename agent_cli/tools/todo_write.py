"""todo_write: replace the session's todo list with a complete, validated snapshot (SPEC §6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import TypeAdapter, WithJsonSchema

from agent_cli.core.events import TodosUpdated
from agent_cli.core.payloads import TodoItem, TodosDisplay
from agent_cli.core.text.counts import counted
from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.session.transcript import TodosRecord, _Record
from agent_cli.todo.tracker import TOOL_NAME, TodoError, TodoTracker

# What the model sees is generated from the same TodoItem the tracker validates with. The field
# itself accepts anything, so the tracker (not the generic validator) reports each broken item
# and rule, and can parse a list that arrives as a string.
_TODOS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": TypeAdapter(TodoItem).json_schema(),
    "description": "The complete list, in order. It replaces the previous list entirely.",
}


class TodoWriteInput(ToolInput):
    todos: Annotated[Any, WithJsonSchema(_TODOS_SCHEMA)]


class TodoWrite(Tool[TodoWriteInput]):
    name = TOOL_NAME
    input_model = TodoWriteInput
    # touches no file and no process, only the session's plan: allowed wherever reading is
    read_only = True

    def __init__(
        self, tracker: TodoTracker, record: Callable[[_Record], None] = lambda _r: None
    ) -> None:
        self.tracker = tracker
        self.record = record

    def describe_call(self, args: TodoWriteInput) -> str:
        if not isinstance(args.todos, list):
            return "todo_write (? items)"
        return f"todo_write ({counted(len(args.todos), 'item')})"

    async def run(self, args: TodoWriteInput, ctx: ToolContext) -> ToolResult:
        try:
            self.tracker.replace(args.todos)
        except TodoError as e:
            return ToolResult(str(e), is_error=True, summary="todo_write: refused")
        items = list(self.tracker.items)
        self.record(TodosRecord(todos=self.tracker.as_dicts()))
        ctx.emit(TodosUpdated(todos=items))
        done, total = self.tracker.completed(), len(items)
        return ToolResult(
            self.tracker.result_text(),
            summary=f"todo_write ({done}/{total} completed)",
            display=TodosDisplay(todos=items),
        )
