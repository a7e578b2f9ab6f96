"""What the store remembers about each checkpoint: one JSON object per line in `index.jsonl`
(the trees themselves live in the shadow git)."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from agent_cli.session.transcript import now_iso

log = logging.getLogger(__name__)

PROMPT_CHARS = 120


def new_checkpoint_id() -> str:
    return secrets.token_hex(4)


def first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0][:PROMPT_CHARS] if stripped else ""


class Skipped(BaseModel):
    """A file left out of a snapshot."""

    path: str = Field(description="Relative to the workspace.")
    size: int = Field(description="Bytes.")
    reason: str = Field(default="over max_file_bytes", description="Why it was left out.")


class Checkpoint(BaseModel):
    """The workspace as it was at the start of a turn (or before a rewind)."""

    type: Literal["checkpoint"] = "checkpoint"
    id: str = Field(description="Short id the user types (a unique prefix is enough).")
    session_id: str = Field(description="The session whose turn it precedes.")
    turn: int = Field(description="1 for the session's first checkpoint.")
    kind: Literal["turn", "rewind"] = Field(description="Before a turn, or before a rewind.")
    created: str = Field(default_factory=now_iso, description="UTC time.")
    prompt: str = Field(description="First line of the turn's prompt (or what the rewind did).")
    commit: str = Field(description="The shadow git commit holding the snapshot.")
    tree: str = Field(description="Its tree.")
    transcript_bytes: int = Field(
        description="Size of the session's transcript before the prompt: the conversation to "
        "go back to."
    )
    skipped: list[Skipped] = Field(default_factory=list, description="Files not stored.")


class TurnEndRecord(BaseModel):
    """The workspace when the checkpoint's turn ended: what the turn changed."""

    type: Literal["turn_end"] = "turn_end"
    id: str = Field(description="The checkpoint whose turn ended.")
    commit: str
    tree: str
    created: str = Field(default_factory=now_iso)


Entry = Annotated[Checkpoint | TurnEndRecord, Field(discriminator="type")]
ENTRY: TypeAdapter[Entry] = TypeAdapter(Entry)


def append_entry(path: Path, entry: Checkpoint | TurnEndRecord) -> None:
    """Append one line; a line a crash cut off is ended first, or this one would join it."""
    with path.open("a+b") as f:
        cut_off = f.tell() > 0 and f.seek(-1, 2) >= 0 and f.read(1) != b"\n"
        f.write((b"\n" if cut_off else b"") + entry.model_dump_json().encode() + b"\n")
        f.flush()


def read_entries(path: Path) -> Iterator[Entry]:
    """Every valid line; a broken one (a crash mid-write) is skipped with a log line."""
    if not path.is_file():
        return
    with path.open(encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield ENTRY.validate_python(json.loads(line))
            except (json.JSONDecodeError, ValidationError):
                log.warning("%s:%d: skipped a broken checkpoint line", path, number)
