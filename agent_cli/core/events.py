"""Typed loop events: the one contract between the loop and the UI, `stream-json` and the logs.

Each event is a pydantic model discriminated on `type`; `event.model_dump(mode="json")` is the
`stream-json` line.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from agent_cli.core.asking import Answer, PlanChoice, Question
from agent_cli.core.payloads import Note, Source, TodoItem, ToolDisplay
from agent_cli.core.verify_events import ClaimsChecked as ClaimsChecked
from agent_cli.core.verify_events import GoalChecked as GoalChecked


class TextDelta(BaseModel):
    """A piece of assistant text as it streams."""

    type: Literal["text"] = "text"
    text: str = Field(description="The new characters.")


class ThinkingDelta(BaseModel):
    """A piece of the model's extended thinking as it streams (shown dim, never the answer)."""

    type: Literal["thinking"] = "thinking"
    text: str = Field(description="The new characters of thinking ('' for a redacted block).")
    redacted: bool = Field(
        default=False, description="True for a redacted_thinking block: encrypted, not shown."
    )


class StreamRestart(BaseModel):
    """The reply stream broke and the request is sent again: discard the unfinished reply."""

    type: Literal["stream_restart"] = "stream_restart"
    attempt: int = Field(description="1 for the first retry.")
    reason: str = Field(description="Why the stream broke.")


class Retrying(BaseModel):
    """A request failed before any reply and is sent again after a pause."""

    type: Literal["retrying"] = "retrying"
    reason: str = Field(description="The status or the connection's cause: '529 overloaded'.")
    delay_s: float = Field(description="Seconds until the request is sent again.")
    attempt: int = Field(description="1 for the first retry.")
    attempts: int = Field(description="Retries allowed (settings: max_retries).")

    def line(self) -> str:
        if not self.delay_s:  # asked again at once (a silent or dropped stream)
            return f"{self.reason}: asking again ({self.attempt}/{self.attempts})"
        return f"{self.reason}: retrying in {self.delay_s:g} s ({self.attempt}/{self.attempts})"


class ToolStart(BaseModel):
    """A tool call is about to run."""

    type: Literal["tool_start"] = "tool_start"
    id: str = Field(description="The tool_use id.")
    name: str = Field(description="The tool name.")
    input: dict[str, Any] = Field(description="The arguments as the model sent them.")


class ToolEnd(BaseModel):
    """A tool call finished (successfully or not)."""

    type: Literal["tool_end"] = "tool_end"
    id: str = Field(description="The tool_use id.")
    name: str = Field(description="The tool name.")
    is_error: bool = Field(description="True when the result is an error.")
    summary: str = Field(description="One line for the user, e.g. 'read_file a.py (120 lines)'.")
    display: ToolDisplay | None = Field(
        default=None, description="Extra detail for the UI: a diff, the todo list, a note."
    )
    output: str = Field(
        default="",
        description="The result the model read (redacted): previews and the tool-call view.",
    )


class SubagentProgress(BaseModel):
    """A subagent (a `task` call still running) finished one of its own tool calls."""

    type: Literal["subagent_progress"] = "subagent_progress"
    id: str = Field(description="The tool_use id of the task call running the subagent.")
    tool_calls: int = Field(description="Tool calls the subagent has finished so far.")
    elapsed_s: float = Field(description="Seconds since the subagent started.")
    cost_usd: float | None = Field(
        default=None, description="What its calls cost so far; None when its model has no price."
    )


class TodosUpdated(BaseModel):
    """The session's todo list changed."""

    type: Literal["todos"] = "todos"
    todos: list[TodoItem] = Field(description="The whole list: content, status, active_form.")


class NoteAdded(BaseModel):
    """A subagent handed in a structured note."""

    type: Literal["note"] = "note"
    note: Note = Field(description="The note as stored.")


class CompactionDone(BaseModel):
    """A context-pipeline stage rewrote the history."""

    type: Literal["compaction"] = "compaction"
    stage: str = Field(description="budget, snip, micro, summary, compact or reactive.")
    messages_before: int
    messages_after: int
    tokens_before: int = Field(description="Estimated tokens before.")
    tokens_after: int = Field(description="Estimated tokens after.")
    archive_path: str | None = Field(default=None, description="Where the removed part went.")


class UsageUpdate(BaseModel):
    """Token use of one model call, and the session totals."""

    type: Literal["usage"] = "usage"
    caller: str = Field(description="main, subagent:<id>, summariser or episode.")
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    web_search_requests: int = Field(default=0, description="Web searches run by the API.")
    context_tokens: int = Field(description="Tokens the request occupied in the context window.")
    context_window: int = Field(description="The model's context window.")
    session_cost_usd: float | None = Field(description="Estimated cost so far; None if unknown.")
    priced_cost_usd: float | None = Field(
        default=None,
        description="The cost of the calls whose model has a price (all of it when "
        "session_cost_usd is set; the known part when it is None).",
    )


class CitedSource(Source):
    """A page a reply cites, with the number its text marks it by."""

    n: int = Field(description="Its number, as marked in the reply's text: [n].")


class SourcesCited(BaseModel):
    """The pages a reply cited (web search results), numbered as in its text."""

    type: Literal["sources"] = "sources"
    sources: list[CitedSource]


class WarningEvent(BaseModel):
    """Something the user should know that does not stop the turn."""

    type: Literal["warning"] = "warning"
    message: str


class ErrorEvent(BaseModel):
    """The turn failed."""

    type: Literal["error"] = "error"
    kind: str = Field(description="The error class, e.g. PromptTooLongError.")
    message: str
    exit_code: int = Field(default=1, description="What `agent run` exits with for it.")


class CheckpointSaved(BaseModel):
    """The workspace was snapshotted before the turn: `agent rewind ID` takes the turn back."""

    type: Literal["checkpoint"] = "checkpoint"
    id: str = Field(description="The checkpoint id.")
    turn: int = Field(description="The turn's number in its session (1 for the first).")
    skipped: list[str] = Field(
        default_factory=list, description="Files not stored (over the size limit, nested repos)."
    )


class FilesChanged(BaseModel):
    """What the turn changed in the workspace (sent just before turn_end)."""

    type: Literal["files_changed"] = "files_changed"
    checkpoint_id: str = Field(description="The turn's checkpoint.")
    files: list[str] = Field(description="Paths the turn added, modified or deleted.")
    session_files: int = Field(description="Files changed since the session's first turn.")


class Steered(BaseModel):
    """Messages the user typed during the turn are now in history: the model reads them next."""

    type: Literal["steered"] = "steered"
    texts: list[str] = Field(description="The user's messages, oldest first.")
    notices: int = Field(default=0, description="Background-job notices delivered with them.")


class QuestionAsked(BaseModel):
    """The model asks the user (ask_user); the answers follow in an `answer` event."""

    type: Literal["question"] = "question"
    id: str = Field(description="The tool_use id of the ask_user call.")
    questions: list[Question]


class Answered(BaseModel):
    """The user's answers to an ask_user call (none: nobody could be asked)."""

    type: Literal["answer"] = "answer"
    id: str = Field(description="The tool_use id of the ask_user call.")
    answers: list[Answer] = Field(default_factory=list)
    nobody: bool = Field(default=False, description="True when no user could be asked.")


class PlanPresented(BaseModel):
    """The model handed over a plan for approval (present_plan)."""

    type: Literal["plan"] = "plan"
    id: str = Field(description="The tool_use id of the present_plan call.")
    plan: str = Field(description="The plan, markdown.")
    path: str = Field(default="", description="Where the plan is kept.")


class PlanDecided(BaseModel):
    """What became of a presented plan."""

    type: Literal["plan_decision"] = "plan_decision"
    id: str = Field(description="The tool_use id of the present_plan call.")
    choice: PlanChoice
    feedback: str = Field(default="", description="The user's feedback (keep planning).")


Judge = Literal["rules", "reviewer", "user"]


class AutoVerdict(BaseModel):
    """A call that `default` would have asked about, answered in auto mode."""

    type: Literal["auto_verdict"] = "auto_verdict"
    call: str = Field(description="The call as the question would have named it.")
    allowed: bool
    by: Judge = Field(description="rules (never the reviewer's), reviewer, or the user.")
    reason: str = Field(description="One line: why.")
    tool_use_id: str = Field(default="", description="The call's tool_use id.")

    def line(self) -> str:
        mark = "✓" if self.allowed else "✗"
        who = "" if self.by == "reviewer" else f" ({self.by})"
        return f"auto {mark} {self.call} — {self.reason}{who}"


class TurnEnd(BaseModel):
    """The turn is over."""

    type: Literal["turn_end"] = "turn_end"
    stop: Literal["done", "max_turns", "interrupted", "error"]
    text: str = Field(description="The final assistant text of the turn.")
    rounds: int = Field(description="Model requests made in this turn.")


Event = Annotated[
    TextDelta
    | ThinkingDelta
    | StreamRestart
    | Retrying
    | ToolStart
    | ToolEnd
    | SubagentProgress
    | TodosUpdated
    | NoteAdded
    | CompactionDone
    | UsageUpdate
    | SourcesCited
    | WarningEvent
    | ErrorEvent
    | CheckpointSaved
    | FilesChanged
    | Steered
    | QuestionAsked
    | Answered
    | PlanPresented
    | PlanDecided
    | GoalChecked
    | ClaimsChecked
    | AutoVerdict
    | TurnEnd,
    Field(discriminator="type"),
]
