"""Transcript records (one JSON object per line), the append-only writer and a tolerant reader.

A transcript grows with content, not with compactions: every message is written once, and a
compaction record lists the new live context as references to the lines that already hold its
messages (byte offsets), with only new or rewritten messages inline. It also carries a snapshot
of the running totals (usage, todos, where the notes and episodes are), so resume reads the
newest compaction and what follows it, never the whole file (`session.boundary`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, TypeAdapter, ValidationError

from agent_cli.core.files.line_views import LinePart, line_digest
from agent_cli.core.files.paths import make_dirs, state_write_error
from agent_cli.core.messages import Message
from agent_cli.session.shape import checked_message

log = logging.getLogger(__name__)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


CheckedMessage = Annotated[Message, AfterValidator(checked_message)]


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
        description="`<session id>@<checkpoint id>` when a rewind started this session; "
        "`<session id>` when it was forked whole (--fork-session, /fork, a session in use).",
    )
    worktree: str | None = Field(
        default=None, description="The agent worktree it works in (`--worktree NAME`)."
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


Ref = tuple[int, int]
"""(byte offset of a record line, index of the message in it); offset -1: this record."""


class TranscriptSnapshot(BaseModel):
    """Running totals at a compaction, so resume need not read what came before it."""

    usage_by_model: dict[str, dict[str, int]] = Field(default_factory=dict)
    calls: int = Field(default=0, description="Model calls so far.")
    compactions: int = Field(default=0, description="Compactions so far, this one included.")
    todos: list[dict[str, Any]] = Field(default_factory=list, description="The newest list.")
    notes_at: list[int] = Field(default_factory=list, description="Offsets of note records.")
    episodes_at: list[int] = Field(default_factory=list, description="Offsets of episodes.")
    title: str = Field(default="", description="The session's title (/rename), if given.")


class CompactionRecord(_Record):
    """The live context was rewritten. With `live`, the new context is those references, in
    order, into earlier lines and `messages` (new or rewritten ones); without it (older
    transcripts), `messages` is the whole new context."""

    type: Literal["compaction"] = "compaction"
    stage: str
    messages: list[CheckedMessage]
    archive_path: str | None = None
    replaced: int = Field(default=0, description="Messages replaced or removed.")
    live: list[Ref] | None = None
    snapshot: TranscriptSnapshot | None = None


class ShownRecord(_Record):
    """What the screen showed that the messages do not say: a finished tool call's line (its
    summary, whether it failed), a queued text the model was given, the error a turn failed
    with, a goal's check, how long the model thought; and a text the agent itself gave the model
    as the user (`notice`: a job's end, a hook's context, a goal's feedback), never typed by the
    user. A redraw shows it again, each as it was shown."""

    type: Literal["shown"] = "shown"
    kind: Literal["tool", "steered", "error", "notice", "goal", "thought"] = "tool"
    id: str = Field(
        default="",
        description="The tool_use id (a tool's line); what gave a notice (`job`, `context`, "
        "`follow-up`, `wake`).",
    )
    text: str = Field(
        description="The tool's summary line, the steered text, the error, the notice as the "
        "model got it, the goal's line, or `thought for 3s`."
    )
    is_error: bool = False


class UsageRecord(_Record):
    type: Literal["usage"] = "usage"
    caller: str
    model: str
    usage: dict[str, int]


class CallCostRecord(_Record):
    """One model call judged (model/calls.py): `entry` holds the cost extension's CallEntry
    fields; `fp` the request's fingerprint and `at` the judge's clock, to judge the same
    agent's next call after a resume."""

    type: Literal["call"] = "call"
    caller: str
    entry: dict[str, Any]
    fp: dict[str, Any] | None = None
    at: str = ""  # ISO time, by the judge's clock


class TitleRecord(_Record):
    """The session's title, as /rename gave it (the newest one counts)."""

    type: Literal["title"] = "title"
    title: str


class VerdictRecord(_Record):
    """Auto mode answered a call (core/auto_events.py's AutoVerdict, as it was said)."""

    type: Literal["auto_verdict"] = "auto_verdict"
    call: str
    allowed: bool
    by: str
    reason: str


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
    | CallCostRecord
    | EpisodeRecord
    | ShownRecord
    | TitleRecord
    | VerdictRecord,
    Field(discriminator="type"),
]
RECORD_ADAPTER: TypeAdapter[Record] = TypeAdapter(Record)


@dataclass
class TranscriptLedger:
    """What the writer tracks to write compaction records that refer instead of copy."""

    snapshot: TranscriptSnapshot = field(default_factory=TranscriptSnapshot)
    # id(message) -> (its reference, the message itself: held, so the id stays unique)
    where: dict[int, tuple[Ref, Message]] = field(default_factory=dict)

    def place(self, message: Message, ref: Ref) -> None:
        self.where[id(message)] = (ref, message)

    def ref_of(self, message: Message) -> Ref | None:
        found = self.where.get(id(message))
        return found[0] if found is not None and found[1] is message else None

    def take(self, record: _Record, offset: int) -> None:
        snap = self.snapshot
        if isinstance(record, UsageRecord):
            known = snap.usage_by_model.get(record.model, {})
            snap.usage_by_model[record.model] = {
                k: known.get(k, 0) + v for k, v in record.usage.items()
            }
            snap.calls += 1
        elif isinstance(record, TodosRecord):
            snap.todos = record.todos
        elif isinstance(record, NoteRecord):
            snap.notes_at.append(offset)
        elif isinstance(record, EpisodeRecord):
            snap.episodes_at.append(offset)
        elif isinstance(record, TitleRecord):
            snap.title = record.title


class TranscriptWriter:
    """Appends records and flushes each one, so a crash loses at most the line being written."""

    def __init__(self, path: Path, ledger: TranscriptLedger | None = None) -> None:
        self.path = path
        self.ledger = ledger or TranscriptLedger()
        self._lock = threading.Lock()
        # opened with the first record (nothing is written before) and kept: a record a round
        # was an open and a close each; written unbuffered, so each line is out at once
        self._fd: int | None = None
        self._end_cut_off_line()

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """The file let go of (a later record opens it again)."""
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

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
            with self.path.open("ab") as f:
                f.write(b"\n")

    def append(self, record: _Record) -> int:
        """Writes one line; returns the byte offset it starts at."""
        line = record.model_dump_json().encode("utf-8", "backslashreplace") + b"\n"
        try:
            with self._lock:
                fd = self._open()
                offset = os.lseek(fd, 0, os.SEEK_END)
                written = 0
                while written < len(line):
                    written += os.write(fd, line[written:])
        except OSError as e:  # a full disk, a folder made read-only: the run ends, one line
            raise state_write_error(self.path, e) from e
        self.ledger.take(record, offset)
        return offset

    def _open(self) -> int:
        """The file, kept open; opened again when it was removed since (as each record opened
        it before: the file is made again, a folder that went away is a write error)."""
        if self._fd is None:
            make_dirs(self.path.parent)
        elif os.fstat(self._fd).st_nlink == 0:
            os.close(self._fd)
        else:
            return self._fd
        self._fd = None
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        return self._fd

    def message(self, message: Message) -> None:
        """Appends a message; a later compaction that keeps this very object refers to it."""
        offset = self.append(MessageRecord(message=message))
        self.ledger.place(message, (offset, 0))

    def locate(self, message: Message) -> LinePart | None:
        """Where this very message is written (for a view instead of a copy), read back and
        compared; None when it is not written as it is now."""
        ref = self.ledger.ref_of(message)
        if ref is None:
            return None
        offset, n = ref
        try:
            with self._lock, self.path.open("rb") as f:
                f.seek(offset)
                line = f.readline()
            record = json.loads(line)
        except (OSError, ValueError):
            return None
        pick: list[str | int] = ["message"] if record.get("type") == "message" else ["messages", n]
        try:
            held = record[pick[0]] if len(pick) == 1 else record["messages"][n]
        except (KeyError, IndexError, TypeError):
            return None
        if held != message:
            return None
        return LinePart(at=offset, length=len(line), sha=line_digest(line), pick=pick)

    def compaction(
        self, stage: str, messages: list[Message], archive_path: str | None, replaced: int
    ) -> None:
        """The new live context, written as references to the lines that hold its messages."""
        ledger = self.ledger
        live: list[Ref] = []
        inline: list[Message] = []
        for message in messages:
            ref = ledger.ref_of(message)
            if ref is None:
                ref = (-1, len(inline))
                inline.append(message)
            live.append(ref)
        ledger.snapshot.compactions += 1
        record = CompactionRecord(
            stage=stage,
            messages=inline,
            archive_path=archive_path,
            replaced=replaced,
            live=live,
            snapshot=ledger.snapshot,
        )
        offset = self.append(record)
        kept = {id(m) for m in messages}
        ledger.where = {k: v for k, v in ledger.where.items() if k in kept}
        for n, message in enumerate(inline):
            ledger.place(message, (offset, n))


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
