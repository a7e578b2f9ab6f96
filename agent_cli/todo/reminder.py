"""The todo reminder: a `Guide` that counts tool rounds since the plan was last updated.

A round with a successful todo_write sets the count to 0; any other round with tool calls adds 1
(however many calls it holds; a failed todo_write is an ordinary round). Once the count reaches the
threshold and the list has unfinished items, the next request carries one `<system-reminder>`
text block and the count returns to 0. The block is request-only: the loop never stores it.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_cli.core.messages import Block, Message
from agent_cli.core.tool_contract import ToolResult
from agent_cli.todo.tracker import TOOL_NAME, TodoTracker, render

REMINDER_ROUNDS = 3


def wrote_todos(calls: Sequence[Block], results: Sequence[ToolResult]) -> bool:
    return any(
        call.get("name") == TOOL_NAME and not result.is_error
        for call, result in zip(calls, results, strict=False)
    )


class TodoReminder:
    def __init__(self, tracker: TodoTracker, rounds: int = REMINDER_ROUNDS) -> None:
        self.tracker = tracker
        self.rounds = rounds
        self.count = 0
        # the newest message the reminder was given for: a request rebuilt for the same history
        # (the retry after a prompt-too-long recovery) carries it again instead of losing it
        self._reminded_tail: Message | None = None

    def after_round(self, calls: list[Block], results: list[ToolResult]) -> None:
        if not calls:
            return
        self.count = 0 if wrote_todos(calls, results) else self.count + 1

    def guidance(self, messages: list[Message]) -> list[Block]:
        tail = messages[-1] if messages else None
        if self.count >= self.rounds and self.tracker.unfinished():
            self.count = 0
            self._reminded_tail = tail
        if tail is not None and tail is self._reminded_tail:
            return [{"type": "text", "text": self.text()}]
        return []

    def text(self) -> str:
        return (
            "<system-reminder>\n"
            f"The todo list has not been updated in the last {self.rounds} tool rounds. "
            "If you made progress or the plan changed, call todo_write now with the complete "
            "updated list: mark finished items completed and keep one item in_progress. "
            "If the list is still accurate, carry on. This note comes from the agent, not the "
            "user; do not mention it.\n\n"
            f"Current list:\n{render(self.tracker.items)}\n"
            "</system-reminder>"
        )
