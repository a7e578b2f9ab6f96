"""Our events as ACP session updates: text as `agent_message_chunk`, thinking as
`agent_thought_chunk`, a tool call as `tool_call`
then `tool_call_update` (status, the result, a file edit as a diff with its file's location),
the todo list as `plan`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
)

from agent_cli.core.events import (
    Event,
    TextDelta,
    ThinkingDelta,
    TodosUpdated,
    ToolEnd,
    ToolStart,
)
from agent_cli.core.payloads import DiffDisplay, TodoItem

Update = AgentMessageChunk | AgentThoughtChunk | AgentPlanUpdate | ToolCallStart | ToolCallProgress
OUTPUT_CHARS = 8_000  # what a tool call's card shows of its result
EDITS = ("edit_file", "write_file")
KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "edit_file": "edit",
    "write_file": "edit",
    "grep": "search",
    "glob": "search",
    "bash": "execute",
    "web_fetch": "fetch",
    "web_search": "fetch",
    "todo_write": "think",
    "present_plan": "think",
}


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def plan(todos: list[TodoItem]) -> AgentPlanUpdate:
    return helpers.update_plan(
        helpers.plan_entry(t.content, status=t.status, priority="medium") for t in todos
    )


def title(name: str, args: dict[str, Any]) -> str:
    subject = args.get("command") or args.get("path") or args.get("pattern") or args.get("url")
    return f"{name} {subject}" if isinstance(subject, str) and subject else name


@dataclass
class Call:
    name: str
    args: dict[str, Any]
    path: Path | None  # the file it names, absolute
    before: str | None = None  # an edit's file before it ran (None: it did not exist)


@dataclass
class ToolCards:
    """The tool calls of a session as the editor shows them: opened at ToolStart, closed at
    ToolEnd, the rest failed when a prompt is cancelled."""

    workspace: Path
    open: dict[str, Call] = field(default_factory=dict)

    def path_of(self, args: dict[str, Any]) -> Path | None:
        raw = args.get("path")
        if not isinstance(raw, str) or not raw:
            return None
        return (self.workspace / Path(raw).expanduser()).resolve()

    def start(self, event: ToolStart) -> ToolCallStart:
        path = self.path_of(event.input)
        call = Call(event.name, event.input, path)
        if event.name in EDITS and path is not None:
            call.before = read_text(path)
        self.open[event.id] = call
        return helpers.start_tool_call(
            event.id,
            title(event.name, event.input),
            kind=KINDS.get(event.name, "other"),
            status="in_progress",
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
            raw_input=event.input,
        )

    def end(self, event: ToolEnd) -> ToolCallProgress:
        call = self.open.pop(event.id, None)
        content: list[ContentToolCallContent | FileEditToolCallContent] = []
        if isinstance(event.display, DiffDisplay) and call is not None and call.path is not None:
            after = read_text(call.path) or ""
            content.append(helpers.tool_diff_content(str(call.path), after, call.before))
        elif event.output:
            content.append(helpers.tool_content(helpers.text_block(event.output[:OUTPUT_CHARS])))
        return helpers.update_tool_call(
            event.id,
            title=event.summary or None,
            status="failed" if event.is_error else "completed",
            content=content or None,
        )

    def abandon(self) -> list[ToolCallProgress]:
        """A cancelled prompt: every call still open is failed."""
        cards = [helpers.update_tool_call(i, status="failed") for i in self.open]
        self.open.clear()
        return cards

    def proposed(self, call_id: str) -> FileEditToolCallContent | None:
        """What an edit waiting for permission would make of its file, as a diff."""
        call = self.open.get(call_id)
        if call is None or call.name not in EDITS or call.path is None:
            return None
        args, before = call.args, call.before or ""
        if call.name == "write_file":
            after = str(args.get("content", ""))
        else:
            old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
            after = before.replace(old, new, -1 if args.get("replace_all") else 1)
        return helpers.tool_diff_content(str(call.path), after, call.before)

    def update(self, event: Event) -> Update | None:
        if isinstance(event, TextDelta):
            return helpers.update_agent_message_text(event.text)
        if isinstance(event, ThinkingDelta):  # a redacted block has nothing to show
            return helpers.update_agent_thought_text(event.text) if event.text else None
        if isinstance(event, ToolStart):
            return self.start(event)
        if isinstance(event, ToolEnd):
            return self.end(event)
        if isinstance(event, TodosUpdated):
            return plan(event.todos)
        return None
