"""Files kept as pointers into a session's transcript instead of copies of what it holds.

A transcript is append-only and already holds every message whole, so a compaction's archive of
snipped messages and a saved copy of a result the model has seen would be its second copy (at a
thousand rounds of 6 KB reads, the session's folder grew by two copies a round). Such a file is
written as a view: a notice line, then one JSON line naming transcript lines by byte offset,
length and digest. `read_view` gives back the text the copy would have held; read_file uses it,
so the model reads an archive or a saved output as before.

A line found at its offset with its digest is the one; otherwise (the transcript lost a line
before it) the line with that digest is looked for in the whole file. A view is honoured only
inside the transcripts folder it points into, and only for a `.jsonl` file directly in it:
elsewhere a file that looks like one is just a file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

NOTICE = "[agent: points into the session's transcript; read_file shows the text]"
_MAGIC = (NOTICE + "\n").encode()


class LinePart(BaseModel):
    """A message held by a transcript line: the line, and where the message is in its record."""

    at: int = Field(description="Byte offset of the line.")
    length: int = Field(description="Bytes of the line, its newline included.")
    sha: str = Field(description="The line's sha256, first 16 hex digits.")
    pick: list[str | int] = Field(description='The message in the record: ["message"], …')
    block: int | None = Field(default=None, description="A text view: the tool_result's index.")
    tool_use_id: str | None = None


class InlinePart(BaseModel):
    """A record written whole: a message the transcript does not hold as it is here."""

    record: dict[str, Any]


class LineView(BaseModel):
    view: Literal[1] = 1
    kind: Literal["text", "jsonl"] = Field(
        description="text: one tool result's text; jsonl: one message record per part."
    )
    transcript: str = Field(description="The transcript's file name, in the transcripts folder.")
    parts: list[LinePart | InlinePart]


class ViewBroken(Exception):
    """A view whose transcript no longer holds what it points to."""


def line_digest(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()[:16]


def content_text(content: object) -> str | None:
    """A tool_result's content as text, or None when it holds something else (an image)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") == "text" for b in content
    ):
        return "\n".join(str(b.get("text", "")) for b in content)
    return None


def write_view(path: Path, view: LineView) -> None:
    """Whole or not at all (a crash mid-write leaves no half view to misread)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(_MAGIC + view.model_dump_json(exclude_defaults=True).encode() + b"\n")
    partial.replace(path)


def is_view(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return starts_a_view(f.read(len(_MAGIC)))
    except OSError:
        return False


def starts_a_view(head: bytes) -> bool:
    """Whether a file that begins with `head` (at least its first VIEW_HEAD bytes) is a view."""
    return head[: len(_MAGIC)] == _MAGIC


VIEW_HEAD = len(_MAGIC)


def read_view(path: Path, transcripts: Path) -> str | None:
    """The text a view stands for; None when `path` is not a view honoured here. Raises
    ViewBroken when it is one whose lines are gone."""
    if not is_view(path):  # first: most files read are not views, and it is one open, not
        return None  # the two walks of every parent that resolving them both is
    root = transcripts.resolve()
    if not path.resolve().is_relative_to(root):
        return None
    try:
        view = LineView.model_validate_json(path.read_bytes()[len(_MAGIC) :])
    except (ValidationError, OSError) as e:
        raise ViewBroken(f"{path.name} is a transcript view that cannot be read ({e})") from e
    source = root / view.transcript
    if source.parent != root or source.suffix != ".jsonl" or source.is_symlink():
        raise ViewBroken(f"{path.name} points into {view.transcript}, which is not here")
    if not source.is_file():
        raise ViewBroken(f"{path.name} points into {view.transcript}, which is gone")
    with source.open("rb") as f:
        texts = [_part_text(f, part, view) for part in view.parts]
    return "".join(texts)


def _part_text(f: Any, part: LinePart | InlinePart, view: LineView) -> str:
    if isinstance(part, InlinePart):
        return json.dumps(part.record, ensure_ascii=False) + "\n"
    line = _find_line(f, part, view.transcript)
    try:
        record = json.loads(line)
    except ValueError as e:
        raise ViewBroken(f"the line found in {view.transcript} is not a record") from e
    message = _pick(record, part.pick)
    if view.kind == "jsonl":
        if part.pick == ["message"]:  # a message record: the archive's line is this very line
            return line.decode("utf-8", errors="replace")
        copied = {"ts": record.get("ts", ""), "type": "message", "message": message}
        return json.dumps(copied, ensure_ascii=False) + "\n"
    blocks = message.get("content") if isinstance(message, dict) else None
    block = blocks[part.block] if isinstance(blocks, list) and part.block is not None else None
    if not isinstance(block, dict) or block.get("tool_use_id") != part.tool_use_id:
        raise ViewBroken(f"the line found in {view.transcript} holds another result")
    text = content_text(block.get("content", ""))
    if text is None:
        raise ViewBroken(f"the result in {view.transcript} is not text")
    return text


def _find_line(f: Any, part: LinePart, name: str) -> bytes:
    f.seek(part.at)
    line: bytes = f.read(part.length)
    if len(line) == part.length and line_digest(line) == part.sha:
        return line
    f.seek(0)
    for line in f:  # the offsets moved (a line before them was lost): the digest still finds it
        if len(line) == part.length and line_digest(line) == part.sha:
            return line
    raise ViewBroken(f"{name} no longer holds the line at byte {part.at:,}")


def _pick(record: Any, pick: list[str | int]) -> Any:
    value = record
    try:
        for key in pick:
            value = value[key]
    except (KeyError, IndexError, TypeError) as e:
        raise ViewBroken(f"the transcript line has no {pick}") from e
    return value
