"""Find a session by id prefix and fold its transcript back into live state."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_cli.errors import UsageError
from agent_cli.loop.history import repair
from agent_cli.messages import Message
from agent_cli.model.usage import Usage
from agent_cli.paths import Paths
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


@dataclass
class Restored:
    id: str
    path: Path
    workspace: str = ""
    model: str = ""
    started: str = ""
    messages: list[Message] = field(default_factory=list)
    todos: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    calls: int = 0
    compactions: int = 0
    last_activity: str = ""


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


def latest_session(paths: Paths) -> Path:
    files = session_files(paths)
    if not files:
        raise UsageError("No previous session in this workspace to continue.")
    return files[0]


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
        elif isinstance(record, CompactionRecord):
            state.messages = list(record.messages)
            state.compactions += 1
        elif isinstance(record, TodosRecord):
            state.todos = record.todos
        elif isinstance(record, NoteRecord):
            state.notes.append(record.note)
        elif isinstance(record, EpisodeRecord):
            state.episodes.append(record.episode)
        elif isinstance(record, UsageRecord):
            state.usage = state.usage + Usage.model_validate(record.usage)
            state.calls += 1
    state.messages = repair(state.messages)
    return state
