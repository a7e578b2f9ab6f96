"""Forking a session: a new transcript holding the parent's records as they are now, under a
new first line (`forked_from` names the parent). The parent is only read; it stays whole and
resumable, and its writer may go on appending meanwhile (only whole lines are copied).

Compaction records refer to earlier lines by byte offset (`live`, `notes_at`, `episodes_at`):
the new first line has another length, so every offset is carried over to where that line
sits in the fork. Other records are copied byte for byte; a broken line is left out."""

from __future__ import annotations

from pathlib import Path

from agent_cli.core.files.paths import Paths, make_dirs
from agent_cli.core.markers import INTERRUPTED, USER_INTERRUPTED
from agent_cli.session.boundary import parse_line
from agent_cli.session.owner import SessionOwner, take_session
from agent_cli.session.state import new_session_id
from agent_cli.session.transcript import (
    CompactionRecord,
    MessageRecord,
    Record,
    Ref,
    SessionRecord,
    ShownRecord,
)


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


def _ends_a_turn(record: Record) -> bool:
    """A final answer (an assistant message calling no tool), the error a turn failed with, a
    goal's check after it, or what a stopped turn leaves (the interruption marker, its calls'
    interrupted results)."""
    if isinstance(record, ShownRecord):
        return record.kind in ("error", "goal")
    if not isinstance(record, MessageRecord):
        return False
    content = record.message.get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if record.message.get("role") == "assistant":
        return not any(b.get("type") == "tool_use" for b in blocks)
    return any(b.get("text") == USER_INTERRUPTED or _interrupted(b) for b in blocks)


def _interrupted(block: dict[str, object]) -> bool:
    return block.get("type") == "tool_result" and block.get("content") == INTERRUPTED


def _finished(records: list[tuple[int, bytes, Record]]) -> list[tuple[int, bytes, Record]]:
    """The records up to the turn a live writer is in the middle of: from the first user
    message after the last finished turn on, they are that run's, not the fork's."""
    end = max((n + 1 for n, (_, _, r) in enumerate(records) if _ends_a_turn(r)), default=0)
    for n in range(end, len(records)):
        record = records[n][2]
        if isinstance(record, MessageRecord) and record.message.get("role") == "user":
            return records[:n]
    return records


def fork_transcript(
    parent: Path, target: Path, header: SessionRecord, finished_only: bool = False
) -> Path:
    """Write `target`: `header`, then the parent's records with their references moved.
    `finished_only`: the parent's writer is live, so its unfinished turn stays out."""
    chunks = [header.model_dump_json().encode() + b"\n"]
    position = len(chunks[0])
    moved: dict[int, int] = {}
    records = [(o, ln, r) for o, ln in _whole_lines(parent) if (r := parse_line(ln)) is not None]
    for offset, line, record in _finished(records) if finished_only else records:
        if isinstance(record, SessionRecord):
            continue  # the parent's own first line
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
    paths: Paths, parent: Path, workspace: str, model: str, finished_only: bool = False
) -> tuple[Path, SessionOwner]:
    """A new session holding `parent`'s history, held by this process before it exists.
    `workspace`, `model`: what its first line says when the parent's own is lost;
    `finished_only`: another live run writes to `parent`, its current turn is not copied."""
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
    target = paths.transcript(new_id)
    return fork_transcript(parent, target, header, finished_only), owner
