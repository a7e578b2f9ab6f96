"""Rewinding the conversation: a new session whose transcript is the old one cut just before a
turn's prompt. The old transcript is only read; it stays whole and resumable."""

from __future__ import annotations

import json
from pathlib import Path

from agent_cli.core.errors import UsageError
from agent_cli.core.files.paths import Paths, make_dirs
from agent_cli.ext.checkpoints.records import Checkpoint
from agent_cli.session.transcript import RECORD_ADAPTER, SessionRecord


def _session_record(line: bytes, path: Path) -> SessionRecord:
    try:
        record = RECORD_ADAPTER.validate_python(json.loads(line))
    except ValueError as e:
        raise UsageError(f"{path}: the first line is not a session record") from e
    if not isinstance(record, SessionRecord):
        raise UsageError(f"{path}: the first line is not a session record")
    return record


def fork_session(paths: Paths, checkpoint: Checkpoint, new_id: str) -> Path:
    """Write `new_id`'s transcript: the checkpoint's session up to just before its prompt."""
    old = paths.transcript(checkpoint.session_id)
    if not old.is_file():
        raise UsageError(f"The transcript of session {checkpoint.session_id} is gone: {old}")
    with old.open("rb") as f:
        head = f.read(checkpoint.transcript_bytes)
    lines = head.splitlines(keepends=True)
    if not lines:
        raise UsageError(f"{old} is empty")
    first = _session_record(lines[0], old)
    record = SessionRecord(
        id=new_id,
        workspace=first.workspace,
        model=first.model,
        forked_from=f"{checkpoint.session_id}@{checkpoint.id}",
    )
    body = b"".join(line for line in lines[1:] if line.endswith(b"\n"))  # whole lines only
    target = paths.transcript(new_id)
    make_dirs(target.parent)
    partial = target.with_suffix(".jsonl.partial")
    partial.write_bytes(record.model_dump_json().encode() + b"\n" + body)
    partial.replace(target)  # a listing never sees half a session
    return target


def prompt_at(paths: Paths, checkpoint: Checkpoint) -> str:
    """The whole prompt of the checkpoint's turn, as typed (its first text block): what a
    rewound conversation gives back to the input box. The index's one-line form if unread."""
    try:
        with paths.transcript(checkpoint.session_id).open("rb") as f:
            f.seek(checkpoint.transcript_bytes)
            for line in f:
                record = json.loads(line)
                message = record.get("message") if isinstance(record, dict) else None
                if isinstance(message, dict) and message.get("role") == "user":
                    return _first_text(message.get("content")) or checkpoint.prompt
    except (OSError, ValueError):
        pass
    return checkpoint.prompt


def _first_text(content: object) -> str:
    if isinstance(content, str):
        return content
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            return str(block.get("text", ""))
    return ""
