"""What events carry: the typed payloads the loop, `stream-json`, the transcript readers and the
UI share. A field renamed here is renamed for all of them, and mypy sees every use.

- `TodoItem`: one step of the session's plan (SPEC §6).
- `Note`: a subagent's stored note (SPEC §7), with an `EvidenceCheck` per evidence item and
  file_ref; how it is made, checked, trimmed and rendered lives in `subagent/`.
- `ToolDisplay`: what a finished tool shows the user beside its one-line summary.
- `Source`: a web page found by a search or cited by a reply.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)
from pydantic_core import PydanticCustomError

Status = Literal["pending", "in_progress", "completed"]
NoteStatus = Literal["completed", "max_turns", "error", "interrupted"]
Confidence = Literal["high", "medium", "low"]
CitationKind = Literal["location", "command", "text"]
Verdict = Literal["verified", "not found", "differs", "not checkable"]

CONCLUSION_CHARS = 200
EVIDENCE_ITEMS = 5
QUOTE_LINES = 2
COMMAND_CHARS = 120


class TodoItem(BaseModel):
    """One step of the plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str = Field(description="What to do, in the imperative: 'Run the tests'.")
    status: Status = Field(description="pending, in_progress (at most one item) or completed.")
    active_form: str | None = Field(
        default=None,
        description="The step as an ongoing action, shown while it runs.",
        # a model that learned Claude Code's todo tool writes it `activeForm`
        validation_alias=AliasChoices("active_form", "activeForm"),
    )

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise PydanticCustomError("empty_content", "content is empty after trimming")
        return value

    @field_validator("active_form")
    @classmethod
    def _active_form(cls, value: str | None) -> str | None:
        return (value or "").strip() or None

    @model_serializer(mode="wrap")
    def _without_unset_form(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """Fixed key order; active_form only when set (the same bytes wherever it is dumped)."""
        out: dict[str, object] = handler(self)
        if out.get("active_form") is None:
            out.pop("active_form", None)
        return out

    def as_dict(self) -> dict[str, object]:
        return self.model_dump()


class EvidenceCheck(BaseModel):
    """One evidence item or file reference, as written, with what the runner's code found."""

    model_config = ConfigDict(extra="forbid")

    item: str = Field(description="The item as the note gave it (trimmed).")
    kind: CitationKind = Field(description="location, command or text: what the item cites.")
    verdict: Verdict = Field(description="verified, not found, differs or not checkable.")
    detail: str = Field(default="", max_length=200, description="Why, in a few words.")
    quote: list[str] = Field(
        default_factory=list,
        max_length=QUOTE_LINES + 1,
        description="The cited lines as they are (`N | text`), or the command's outcome.",
    )

    @property
    def verified(self) -> bool:
        return self.verdict == "verified"

    @property
    def failed(self) -> bool:
        """Checked and wrong: worth a fix-up turn (an uncheckable data point is not wrong)."""
        if self.kind == "command":
            return not self.verified
        return self.verdict in ("not found", "differs")


class CommandRun(BaseModel):
    """One bash call of a subagent run, as its tool reported it."""

    command: str = Field(max_length=COMMAND_CHARS, description="The command (cut, redacted).")
    outcome: str = Field(description="exit N, killed by signal N or timed out.")


class NoteFigures(BaseModel):
    """The runner's own measurements of one subagent run."""

    turns: int = Field(default=0, description="Model requests the subagent made.")
    tool_calls: int = Field(default=0, description="Tool calls it made (submit_note excluded).")
    input_tokens: int = Field(default=0, description="Input tokens of its calls, cache included.")
    output_tokens: int = Field(default=0, description="Output tokens of its calls.")
    seconds: float = Field(default=0.0, description="Wall time of the run.")
    process_chars: int = Field(
        default=0, description="Characters of its whole conversation (prompt, replies, results)."
    )
    note_chars: int = Field(
        default=0, description="Characters the parent received: the rendered note."
    )
    files_read: list[str] = Field(
        default_factory=list, description="Files its read_file calls showed (at most 20)."
    )
    commands: list[CommandRun] = Field(
        default_factory=list, description="Its bash calls with their outcomes (at most 20)."
    )

    @property
    def saving(self) -> float | None:
        """Share of the process kept out of the parent's context (0.96 = 96 % smaller)."""
        if self.process_chars <= 0:
            return None
        return 1 - self.note_chars / self.process_chars


class Note(BaseModel):
    """A stored note: the subagent's body, trimmed and checked, plus what the runner knows."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Note id; the files are notes/<id>.md, .json and .log.")
    session_id: str = Field(description="The parent session.")
    description: str = Field(description="The task's short description, as the parent gave it.")
    task: str = Field(description="The task prompt the subagent started from.")
    parent_tool_use_id: str | None = Field(
        default=None, description="The parent's `task` tool_use id."
    )
    status: NoteStatus = Field(
        description="Set by the runner: completed, max_turns, error or interrupted."
    )
    conclusion: str = Field(max_length=CONCLUSION_CHARS, description="One actionable sentence.")
    evidence: list[str] = Field(
        default_factory=list, max_length=EVIDENCE_ITEMS, description="Points to re-check."
    )
    file_refs: list[str] = Field(
        default_factory=list, description="Pointers to details; the log is always among them."
    )
    missing_refs: list[str] = Field(
        default_factory=list, description="file_refs that did not exist when the note was made."
    )
    evidence_checks: list[EvidenceCheck] = Field(
        default_factory=list, description="One check per evidence item, in order (by the runner)."
    )
    ref_checks: list[EvidenceCheck] = Field(
        default_factory=list, description="One check per file_ref, in order (by the runner)."
    )
    marks: list[str] = Field(
        default_factory=list,
        description="Why not to take the note at its word (no tool calls, evidence mostly "
        "unverified); shown in the first line the parent reads.",
    )
    stated_confidence: Confidence | None = Field(
        default=None, description="The confidence the subagent gave, when the runner lowered it."
    )
    fixup_offered: bool = Field(
        default=False, description="The subagent was given one turn to fix failed evidence."
    )
    open_issues: list[str] = Field(default_factory=list, description="What is unresolved.")
    confidence: Confidence = Field(description="high, medium or low.")
    trimmed: list[str] = Field(
        default_factory=list, description="Fields shortened in code; the full text is in the log."
    )
    log_path: str = Field(description="The subagent's full process (the first file_ref).")
    figures: NoteFigures = Field(default_factory=NoteFigures, description="The runner's figures.")
    agent_type: str | None = Field(default=None, description="The subagent type task named.")
    color: str | None = Field(default=None, description="That type's colour, for the panel.")
    created: str = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="milliseconds"),
        description="When the note was made (UTC).",
    )


class DiffDisplay(BaseModel):
    """A file edit or write: the unified diff (capped) of the file it changed."""

    kind: Literal["diff"] = "diff"
    path: str = Field(description="The file, as the user would name it.")
    diff: str = Field(description="Unified diff, capped in lines.")


class TodosDisplay(BaseModel):
    """todo_write: the whole list after the call."""

    kind: Literal["todos"] = "todos"
    todos: list[TodoItem]


class NoteDisplay(BaseModel):
    """task: the note the subagent handed in."""

    kind: Literal["note"] = "note"
    note: Note


class PageDisplay(BaseModel):
    """web_fetch: the page it read."""

    kind: Literal["page"] = "page"
    url: str = Field(description="The page's address, after same-host redirects.")
    title: str = Field(description="Its title; empty when it has none.")
    bytes: int = Field(ge=0, description="Body bytes read (capped by web.max_bytes).")


class Source(BaseModel):
    """A web page a search found or a reply cites."""

    title: str
    url: str


class SearchDisplay(BaseModel):
    """A web search the API ran (a server tool): what it found."""

    kind: Literal["search"] = "search"
    results: list[Source]


ToolDisplay = Annotated[
    DiffDisplay | TodosDisplay | NoteDisplay | PageDisplay | SearchDisplay,
    Field(discriminator="kind"),
]
