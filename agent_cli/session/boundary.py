"""Reading a transcript from its newest compaction: the line is found by scanning back from the
end (bytes only, no JSON), its references are read by seeking, and only the records after it
are parsed. A transcript without such a record (none yet, or written before references) is
read whole, resolving references as it goes."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from agent_cli.core.messages import Message
from agent_cli.session.transcript import RECORD_ADAPTER, CompactionRecord, Record, Ref

log = logging.getLogger(__name__)

BLOCK = 1 << 20
_MARK = b'"type":"compaction"'


def parse_line(line: bytes) -> Record | None:
    if not line.strip():
        return None
    try:
        return RECORD_ADAPTER.validate_python(json.loads(line))
    except (ValueError, ValidationError, RecursionError):
        return None


def records_from(path: Path, start: int = 0) -> Iterator[tuple[int, Record]]:
    """(offset, record) of every valid line from `start`; a broken line is skipped, logged."""
    with path.open("rb") as f:
        f.seek(start)
        offset = start
        for line in f:
            record = parse_line(line)
            if record is None and line.strip():
                log.warning("%s: skipped a broken transcript line at byte %d", path, offset)
            elif record is not None:
                yield offset, record
            offset += len(line)


def _lines_backwards(path: Path) -> Iterator[tuple[int, bytes]]:
    """(offset, line) from the last line to the first, reading the file in blocks."""
    with path.open("rb") as f:
        end = f.seek(0, 2)
        tail = b""
        while end > 0:
            start = max(0, end - BLOCK)
            f.seek(start)
            chunk = f.read(end - start) + tail
            lines = chunk.split(b"\n")
            tail = lines.pop(0) if start > 0 else b""
            position = start + len(tail) + (1 if start > 0 else 0)
            offsets = []
            for line in lines:
                offsets.append(position)
                position += len(line) + 1
            yield from reversed(list(zip(offsets, lines, strict=True)))
            end = start
        if tail:
            yield 0, tail


def newest_boundary(path: Path) -> tuple[int, CompactionRecord] | None:
    """The newest valid compaction record written with references, and its offset."""
    for offset, line in _lines_backwards(path):
        if _MARK not in line[:80]:
            continue
        record = parse_line(line)
        if isinstance(record, CompactionRecord):
            if record.live is None or record.snapshot is None:
                return None  # an older transcript: read it whole
            return offset, record
    return None


class LineReader:
    """Messages (and other records) at byte offsets, each line parsed once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._cache: dict[int, Record | None] = {}

    def record_at(self, offset: int) -> Record | None:
        if offset not in self._cache:
            with self.path.open("rb") as f:
                f.seek(offset)
                self._cache[offset] = parse_line(f.readline())
        return self._cache[offset]

    def message(self, ref: Ref, own: CompactionRecord) -> Message | None:
        offset, n = ref
        record = own if offset == -1 else self.record_at(offset)
        if isinstance(record, CompactionRecord):
            return record.messages[n] if 0 <= n < len(record.messages) else None
        message = getattr(record, "message", None)
        return message if isinstance(message, dict) else None


def resolve(record: CompactionRecord, at: int, lines: LineReader) -> list[tuple[Ref, Message]]:
    """The live context the compaction record at offset `at` names, each message with the
    reference a later compaction can use for it."""
    out: list[tuple[Ref, Message]] = []
    for ref in record.live or []:
        message = lines.message(ref, record)
        if message is None:
            log.warning("%s: a compaction refers to a missing message %s", lines.path, ref)
            continue
        out.append(((at, ref[1]) if ref[0] == -1 else ref, message))
    return out
