"""Find a session by id prefix and fold its transcript back into live state."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agent_cli.core.errors import UsageError
from agent_cli.core.files.paths import Paths
from agent_cli.core.history import repair
from agent_cli.core.messages import Message, blocks_of
from agent_cli.core.payloads import Note, TodoItem
from agent_cli.model.usage import Usage
from agent_cli.session.boundary import LineReader, newest_boundary, records_from, resolve
from agent_cli.session.listing import latest, summaries
from agent_cli.session.transcript import (
    CallCostRecord,
    CompactionRecord,
    EpisodeRecord,
    MessageRecord,
    NoteRecord,
    Record,
    Ref,
    SessionRecord,
    ShownRecord,
    TitleRecord,
    TodosRecord,
    TranscriptLedger,
    UsageRecord,
    read_records,
)

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


def _typed(model: type[M], raw: list[dict[str, Any]], path: Path) -> list[M]:
    """Recorded payloads as models; one that no longer validates is skipped, with a log line."""
    try:
        return [model.model_validate(item) for item in raw]
    except ValidationError as e:
        log.warning("%s: a recorded %s was skipped (%s)", path.name, model.__name__, e)
        return []


@dataclass(frozen=True)
class Boundary:
    """Where a compaction replaced the conversation before it (one line on resume)."""

    stage: str
    replaced: int


@dataclass
class RestoredSession:
    id: str
    path: Path
    workspace: str = ""
    model: str = ""
    started: str = ""
    worktree: str | None = None  # the agent worktree it worked in
    title: str = ""  # given with /rename
    messages: list[Message] = field(default_factory=list)
    todos: list[TodoItem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    # the same tokens per model, so the cost can be priced again on resume
    usage_by_model: dict[str, Usage] = field(default_factory=dict)
    calls: int = 0
    # the judged calls since the newest boundary (model/calls.py resumes judging from them)
    judged: list[dict[str, Any]] = field(default_factory=list)
    compactions: int = 0
    last_activity: str = ""
    # the live messages with the lines that hold them, and the writer's ledger to go on with
    placed: list[tuple[Ref, Message]] = field(default_factory=list)
    ledger: TranscriptLedger = field(default_factory=TranscriptLedger)
    context_tokens: int | None = None  # what the newest main request occupied, if still valid
    # the whole conversation as it happened, compactions included (what resume redraws); read
    # from the file only when asked for, since resuming itself starts at the newest boundary
    history: list[Message | Boundary | ShownRecord] | None = None
    # this session is a fork made as it was opened: why, in the words the user is shown
    forked: str = ""

    def conversation(self) -> list[Message | Boundary | ShownRecord]:
        if self.history is None:
            self.history = read_conversation(self.path)
        return self.history

    @property
    def exchanges(self) -> int:
        replies = (m for m in self.conversation() if isinstance(m, dict))
        return sum(1 for m in replies if m["role"] == "assistant")

    @property
    def first_prompt(self) -> str:
        for message in self.conversation():
            if isinstance(message, dict) and message["role"] == "user":
                for block in blocks_of(message):
                    if block.get("type") == "text":
                        return " ".join(str(block["text"]).split())
        return ""


def session_files(paths: Paths) -> list[Path]:
    if not paths.transcripts.is_dir():
        return []
    files = [p for p in paths.transcripts.glob("*.jsonl") if p.is_file()]
    return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)


def find_session(paths: Paths, prefix: str) -> Path:
    matches = [p for p in session_files(paths) if p.stem.startswith(prefix)]
    if not matches:
        raise UsageError(f"No session matches '{prefix}'. List them with: agent sessions list")
    exact = [p for p in matches if p.stem == prefix]
    if len(matches) > 1 and not exact:
        names = ", ".join(p.stem for p in matches[:5])
        raise UsageError(f"'{prefix}' matches several sessions ({names}); give more of the id.")
    return exact[0] if exact else matches[0]


def recorded_workspace(path: Path) -> str | None:
    """The workspace named by a transcript's first line (None if it cannot be read)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            first = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    workspace = first.get("workspace") if isinstance(first, dict) else None
    return workspace if isinstance(workspace, str) else None


def latest_session(paths: Paths, workspace: Path | None = None) -> Path:
    """The newest session with an exchange (in the listing's order, so the one it marks);
    with `workspace`, the newest one recorded in that workspace (several workspaces may
    share one state directory)."""
    found = latest(summaries(paths), workspace)
    if found is None:
        raise UsageError("No previous session in this workspace to continue.")
    return paths.transcript(found.id)


def warn_other_workspace(path: Path, workspace: Path) -> None:
    recorded = recorded_workspace(path)
    if recorded is not None and recorded != str(workspace):
        log.warning(
            "session %s was recorded in %s; resuming it in %s", path.stem, recorded, workspace
        )


def fold(path: Path) -> RestoredSession:
    """Rebuild the live context (after the newest compaction), todos, notes and usage. The
    session id is the file's name: an id written inside the file is never used as a path."""
    state = RestoredSession(id=path.stem, path=path)
    lines = LineReader(path)
    first = lines.record_at(0)
    if isinstance(first, SessionRecord):
        _take_session(state, first, path)
    else:
        _rebuild_session(state, path)
    boundary = newest_boundary(path)
    start = 0
    if boundary is not None:
        start, compaction = boundary
        _take_snapshot(state, compaction, start, lines)
    for offset, record in records_from(path, start):
        if boundary is not None and offset == start:
            state.last_activity = record.ts
            continue
        _take(state, offset, record, lines)
    state.messages = repair([m for _, m in state.placed])
    state.ledger.where = {}
    refs = {id(m): ref for ref, m in state.placed}
    for message in state.messages:  # what repair left unchanged is still referred to
        if id(message) in refs:
            state.ledger.place(message, refs[id(message)])
    state.ledger.snapshot.todos = [t.model_dump() for t in state.todos]
    return state


def _take_session(state: RestoredSession, record: SessionRecord, path: Path) -> None:
    if record.id != state.id:
        log.warning("%s: the id inside (%r) is not its name; using the name", path, record.id)
    state.workspace, state.model, state.started = record.workspace, record.model, record.started
    state.worktree = record.worktree


def _rebuild_session(state: RestoredSession, path: Path) -> None:
    """The first line (the session record) is lost: its id is the file's name, its workspace
    the one resuming it, its model and start the first ones the records name."""
    models = (r.model for r in read_records(path) if isinstance(r, UsageRecord))
    state.model = next(models, "")
    state.started = next((r.ts for r in read_records(path)), "")
    log.warning(
        "session %s: its first line (the session record) is missing; rebuilt from the records "
        "after it",
        state.id,
    )


def _take_snapshot(
    state: RestoredSession, record: CompactionRecord, at: int, lines: LineReader
) -> None:
    snap = record.snapshot
    assert snap is not None
    state.placed = resolve(record, at, lines)
    state.compactions, state.calls = snap.compactions, snap.calls
    state.title = snap.title
    state.todos = _typed(TodoItem, snap.todos, lines.path)
    for model, totals in snap.usage_by_model.items():
        usage = Usage.model_validate(totals)
        state.usage_by_model[model] = usage
        state.usage = state.usage + usage
    raw_notes = [r.note for r in map(lines.record_at, snap.notes_at) if isinstance(r, NoteRecord)]
    state.notes = _typed(Note, raw_notes, lines.path)
    state.episodes = [
        r.episode for r in map(lines.record_at, snap.episodes_at) if isinstance(r, EpisodeRecord)
    ]
    state.ledger = TranscriptLedger(snapshot=snap.model_copy(deep=True))


def _take(state: RestoredSession, offset: int, record: Record, lines: LineReader) -> None:
    state.last_activity = record.ts
    state.ledger.take(record, offset)
    _take_call(state, record)
    if isinstance(record, MessageRecord):
        state.placed.append(((offset, 0), record.message))
    elif isinstance(record, CompactionRecord):
        state.compactions += 1
        state.context_tokens = None
        if record.live is None:  # an older record: the whole new context, copied
            state.placed = [((offset, n), m) for n, m in enumerate(record.messages)]
        else:
            state.placed = resolve(record, offset, lines)
        state.ledger.snapshot.compactions = state.compactions
    elif isinstance(record, TodosRecord):
        state.todos = _typed(TodoItem, record.todos, lines.path)
    elif isinstance(record, NoteRecord):
        state.notes += _typed(Note, [record.note], lines.path)
    elif isinstance(record, EpisodeRecord):
        state.episodes.append(record.episode)
    elif isinstance(record, TitleRecord):
        state.title = record.title


def _take_call(state: RestoredSession, record: Record) -> None:
    if isinstance(record, CallCostRecord):
        state.judged.append(record.model_dump(include={"caller", "entry", "fp", "at"}))
    elif isinstance(record, UsageRecord):
        usage = Usage.model_validate(record.usage)
        state.usage = state.usage + usage
        known = state.usage_by_model.get(record.model, Usage())
        state.usage_by_model[record.model] = known + usage
        state.calls += 1
        if record.caller == "main":
            state.context_tokens = usage.context_tokens + usage.output_tokens


def read_conversation(path: Path) -> list[Message | Boundary | ShownRecord]:
    """Every message as it was recorded, with a Boundary where a compaction replaced the
    conversation before it and what the screen showed besides: what a resumed REPL redraws."""
    out: list[Message | Boundary | ShownRecord] = []
    for record in read_records(path):
        if isinstance(record, MessageRecord):
            out.append(record.message)
        elif isinstance(record, CompactionRecord):
            out.append(Boundary(record.stage, record.replaced))
        elif isinstance(record, ShownRecord):
            out.append(record)
    return out
