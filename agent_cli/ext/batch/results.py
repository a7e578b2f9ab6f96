"""`results.jsonl`: one whole, synced line per finished task. A batch killed mid-write loses at
most the line being written, and a later run reads the last line each task got."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

Status = Literal["passed", "done", "failed", "error", "skipped"]
# what a rerun leaves alone: the task reached an answer (or its check said no)
FINISHED: frozenset[str] = frozenset({"passed", "done", "failed"})


class Tokens(BaseModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0


class TaskResult(BaseModel):
    """What became of one task."""

    id: str
    status: Status
    exit_code: int | None = Field(default=None, description="`agent run`'s exit code.")
    cost_usd: float = 0.0
    tokens: Tokens = Field(default_factory=Tokens)
    seconds: float = 0.0
    session_id: str | None = None
    diff: str | None = Field(default=None, description="DIR/<id>.diff, when it changed files.")
    transcript: str | None = None
    check_exit: int | None = None
    check_output: str | None = Field(default=None, description="The check's output, its tail.")
    error: str | None = Field(default=None, description="Why it errored or was skipped.")
    kept_worktree: str | None = Field(
        default=None, description="A failed task's tree, kept because it changed something."
    )
    turns: int | None = None


def append(path: Path, result: TaskResult) -> None:
    """One line, written with a single write(2) on an O_APPEND descriptor and synced."""
    line = (result.model_dump_json() + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read(path: Path) -> dict[str, TaskResult]:
    """The newest result of each task; a torn or foreign line is skipped, never fatal."""
    latest: dict[str, TaskResult] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return latest
    for line in text.splitlines():
        try:
            result = TaskResult.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError):
            continue
        latest[result.id] = result
    return latest
