"""Find a session by id prefix and fold its transcript back into live state."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agent_cli.errors import UsageError
from agent_cli.history import repair
from agent_cli.messages import Message, blocks_of
from agent_cli.model.usage import Usage
from agent_cli.paths import Paths
from agent_cli.payloads import Note, TodoItem
from agent_cli.session.transcript import (
    CompactionRecord,
    EpisodeRecord,
    MessageRecord,
    NoteRecord,
    SessionRecord,
    TodosRecord,
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
class Restored:
    id: str
    path: Path
    workspace: str = ""
    model: str = ""
    started: str = ""
    messages: list[Message] = field(default_factory=list)
    todos: list[TodoItem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    # the same tokens per model, so the cost can be priced again on resume
    usage_by_model: dict[str, Usage] = field(default_factory=dict)
    calls: int = 0
    compactions: int = 0
    last_activity: str = ""
    # the whole conversation as it happened, compactions included (what resume redraws)
    history: list[Message | Boundary] = field(default_factory=list)
    context_tokens: int | None = None  # what the newest main request occupied, if still valid

    @property
    def exchanges(self) -> int:
        return sum(1 for m in self.history if isinstance(m, dict) and m["role"] == "assistant")

    @property
    def first_prompt(self) -> str:
        for message in self.history:
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


def has_exchange(path: Path) -> bool:
    """At least one reply was recorded (a session opened and quit at once has none)."""
    return any(
        isinstance(r, MessageRecord) and r.message["role"] == "assistant"
        for r in read_records(path)
    )


def latest_session(paths: Paths, workspace: Path | None = None) -> Path:
    """The newest session with an exchange; with `workspace`, the newest one recorded in that
    workspace (several workspaces may share one state directory)."""
    files = session_files(paths)
    if workspace is not None:
        files = [p for p in files if recorded_workspace(p) == str(workspace)]
    found = next((p for p in files if has_exchange(p)), None)
    if found is None:
        raise UsageError("No previous session in this workspace to continue.")
    return found


def warn_other_workspace(path: Path, workspace: Path) -> None:
    recorded = recorded_workspace(path)
    if recorded is not None and recorded != str(workspace):
        log.warning(
            "session %s was recorded in %s; resuming it in %s", path.stem, recorded, workspace
        )


def fold(path: Path) -> Restored:
    """Rebuild the live context (after the newest compaction), todos, notes and usage."""
    state = Restored(id=path.stem, path=path)
    for record in read_records(path):
        state.last_activity = record.ts
        if isinstance(record, SessionRecord):
            state.id, state.workspace, state.model = record.id, record.workspace, record.model
            state.started = record.started
        elif isinstance(record, MessageRecord):
            state.messages.append(record.message)
            state.history.append(record.message)
        elif isinstance(record, CompactionRecord):
            state.messages = list(record.messages)
            state.compactions += 1
            state.history.append(Boundary(record.stage, record.replaced))
            state.context_tokens = None
        elif isinstance(record, TodosRecord):
            state.todos = _typed(TodoItem, record.todos, path)
        elif isinstance(record, NoteRecord):
            state.notes += _typed(Note, [record.note], path)
        elif isinstance(record, EpisodeRecord):
            state.episodes.append(record.episode)
        elif isinstance(record, UsageRecord):
            usage = Usage.model_validate(record.usage)
            state.usage = state.usage + usage
            known = state.usage_by_model.get(record.model, Usage())
            state.usage_by_model[record.model] = known + usage
            state.calls += 1
            if record.caller == "main":
                state.context_tokens = usage.context_tokens + usage.output_tokens
    state.messages = repair(state.messages)
    return state
