"""Forking a session: a new transcript holding the parent's records as they are now, under a
new first line (`forked_from` names the parent). The parent is only read; it stays whole and
resumable, and its writer may go on appending meanwhile (only whole lines are copied).

Compaction records refer to earlier lines by byte offset (`live`, `notes_at`, `episodes_at`):
the new first line has another length, so every offset is carried over to where that line
sits in the fork. Other records are copied byte for byte; a broken line is left out."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.files.paths import Paths, make_dirs
from agent_cli.session.boundary import parse_line
from agent_cli.session.owner import SessionOwner, take_session
from agent_cli.session.state import new_session_id
from agent_cli.session.transcript import CompactionRecord, Ref, SessionRecord


def _whole_lines(path: Path) -> list[tuple[int, bytes]]:
    """(offset, line) of every complete line: a line still being written is not taken."""
    data = path.read_bytes()
    out, offset = [], 0
    for line in data.splitlines(keepends=True):
        if line.endswith(b"\n"):
            out.append((offset, line))
        offset += len(line)
    return out


def _moved(record: CompactionRecord, moved: dict[int, int]) -> CompactionRecord:
    live: list[Ref] | None = None
    if record.live is not None:  # a reference to a line the fork lacks is lacking there too
        live = [(o if o == -1 else moved[o], n) for o, n in record.live if o == -1 or o in moved]
    snapshot = record.snapshot
    if snapshot is not None:
        snapshot = snapshot.model_copy(
            update={
                "notes_at": [moved[o] for o in snapshot.notes_at if o in moved],
                "episodes_at": [moved[o] for o in snapshot.episodes_at if o in moved],
            }
        )
    return record.model_copy(update={"live": live, "snapshot": snapshot})


def fork_transcript(parent: Path, target: Path, header: SessionRecord) -> Path:
    """Write `target`: `header`, then the parent's records with their references moved."""
    chunks = [header.model_dump_json().encode() + b"\n"]
    position = len(chunks[0])
    moved: dict[int, int] = {}
    for offset, line in _whole_lines(parent):
        record = parse_line(line)
        if record is None or isinstance(record, SessionRecord):
            continue  # a broken line, or the parent's own first line
        if isinstance(record, CompactionRecord):
            line = _moved(record, moved).model_dump_json().encode("utf-8", "backslashreplace")
            line += b"\n"
        moved[offset] = position
        chunks.append(line)
        position += len(line)
    make_dirs(target.parent)
    partial = target.with_suffix(".jsonl.partial")
    partial.write_bytes(b"".join(chunks))
    partial.replace(target)  # a listing never sees half a session
    return target


def first_record(path: Path) -> SessionRecord | None:
    """The parent's first line, when it is the session record it should be."""
    try:
        with path.open("rb") as f:
            record = parse_line(f.readline())
    except OSError:
        return None
    return record if isinstance(record, SessionRecord) else None


def fork_session(
    paths: Paths, parent: Path, workspace: str, model: str
) -> tuple[Path, SessionOwner]:
    """A new session holding `parent`'s history, held by this process before it exists.
    `workspace`, `model`: what its first line says when the parent's own is lost."""
    new_id = new_session_id()
    owner = take_session(paths, new_id)
    assert owner is not None, "a new session id is nobody else's"
    first = first_record(parent)
    header = SessionRecord(
        id=new_id,
        workspace=first.workspace if first else workspace,
        model=first.model if first else model,
        forked_from=parent.stem,
    )
    return fork_transcript(parent, paths.transcript(new_id), header), owner
