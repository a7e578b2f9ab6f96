"""Transcript records (one JSON object per line), the append-only writer and a tolerant reader."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, TypeAdapter, ValidationError

from agent_cli.messages import Message
from agent_cli.paths import make_dirs

log = logging.getLogger(__name__)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _checked_block(block: Any) -> None:
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        raise ValueError("a content block must be an object with a string type")
    required = {"text": "text", "tool_use": "id", "tool_result": "tool_use_id"}.get(block["type"])
    if required and not isinstance(block.get(required), str):
        raise ValueError(f"a {block['type']} block needs a string {required}")


def _checked_message(message: Message) -> Message:
    """The shape the loop relies on; a line that breaks it is skipped like a broken line."""
    if message.get("role") not in ("user", "assistant"):
        raise ValueError("role must be user or assistant")
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            _checked_block(block)
    elif not isinstance(content, str):
        raise ValueError("content must be a string or a list of blocks")
    return message


CheckedMessage = Annotated[Message, AfterValidator(_checked_message)]


class _Record(BaseModel):
    ts: str = Field(default_factory=now_iso, description="When the record was written (UTC).")


class SessionRecord(_Record):
    """First line of every transcript."""

    type: Literal["session"] = "session"
    id: str
    workspace: str
    model: str
    started: str = Field(default_factory=now_iso)
    forked_from: str | None = Field(
        default=None,
        description="`<session id>@<checkpoint id>` when a rewind started this session.",
    )


class MessageRecord(_Record):
    """An API message, content blocks exactly as sent or received."""

    type: Literal["message"] = "message"
    message: CheckedMessage


class TodosRecord(_Record):
    type: Literal["todos"] = "todos"
    todos: list[dict[str, Any]]


class NoteRecord(_Record):
    type: Literal["note"] = "note"
    note: dict[str, Any]


class CompactionRecord(_Record):
    """The live context was rewritten; `messages` is the whole new live context."""

    type: Literal["compaction"] = "compaction"
    stage: str
    messages: list[CheckedMessage]
    archive_path: str | None = None
    replaced: int = Field(default=0, description="Messages replaced or removed.")


class UsageRecord(_Record):
    type: Literal["usage"] = "usage"
    caller: str
    model: str
    usage: dict[str, int]


class EpisodeRecord(_Record):
    type: Literal["episode"] = "episode"
    episode: dict[str, Any]


Record = Annotated[
    SessionRecord
    | MessageRecord
    | TodosRecord
    | NoteRecord
    | CompactionRecord
    | UsageRecord
    | EpisodeRecord,
    Field(discriminator="type"),
]
RECORD_ADAPTER: TypeAdapter[Record] = TypeAdapter(Record)


class TranscriptWriter:
    """Appends records and flushes each one, so a crash loses at most the line being written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._folder_made = False  # made with the first record: nothing is written before
        self._end_cut_off_line()

    def _end_cut_off_line(self) -> None:
        """A crash mid-write left a line without its newline: end it, or the next record would
        join it and be skipped with it on the next resume."""
        try:
            with self.path.open("rb") as f:
                f.seek(-1, 2)
                cut_off = f.read(1) != b"\n"
        except OSError:  # absent, or empty (seek before the start)
            return
        if cut_off:
            with self.path.open("a", encoding="utf-8") as f:
                f.write("\n")

    def append(self, record: _Record) -> None:
        line = record.model_dump_json() + "\n"
        with self._lock:
            if not self._folder_made:
                make_dirs(self.path.parent)
                self._folder_made = True
            self._write(line)

    def _write(self, line: str) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()


def read_records(path: Path) -> Iterator[Record]:
    """Every valid record; a broken line (a crash mid-write) is skipped with a log line."""
    with path.open(encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield RECORD_ADAPTER.validate_python(json.loads(line))
            except (json.JSONDecodeError, ValidationError):
                log.warning("%s:%d: skipped a broken transcript line", path, number)
