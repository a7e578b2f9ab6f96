"""The task file: one JSON object per line, each a run of its own (issue 35)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent_cli.core.errors import UsageError

# an id names files and a branch: the characters a worktree name allows
TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class BatchTask(BaseModel):
    """One line of TASKS.jsonl."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Unique within the file: names the diff, worktree and result.")
    prompt: str = Field(min_length=1, description="What `agent run -p` is given.")
    repo: str | None = Field(
        default=None, description="A local path or a git URL; default the current repository."
    )
    ref: str | None = Field(default=None, description="The commit to start from; default HEAD.")
    check: str | None = Field(
        default=None, description="A shell command run in the task's tree: exit 0 means passed."
    )
    max_cost_usd: float | None = Field(default=None, gt=0, description="This task's own budget.")
    settings: dict[str, Any] = Field(
        default_factory=dict, description="Settings layered over the user's for this task only."
    )

    @field_validator("id")
    @classmethod
    def _id_is_a_name(cls, value: str) -> str:
        if not TASK_ID.match(value):
            raise ValueError("letters, digits, '.', '_' or '-' only (at most 64)")
        return value

    @field_validator("prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the prompt is empty")
        return value


def _parse_line(source: str, number: int, line: str) -> BatchTask:
    where = f"{source}:{number}"
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise UsageError(f"{where}: not valid JSON ({e.msg})") from e
    if not isinstance(data, dict):
        raise UsageError(f"{where}: a task is a JSON object")
    try:
        return BatchTask.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(task)"
        raise UsageError(f"{where}: bad field '{key}': {first['msg']}") from e


def parse_tasks(text: str, source: str = "tasks") -> list[BatchTask]:
    """Every task of `text`; blank lines are skipped; the first bad line stops it (exit 2)."""
    tasks: list[BatchTask] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        task = _parse_line(source, number, line)
        if task.id in seen:
            raise UsageError(
                f"{source}:{number}: task id {task.id!r} is used already (line {seen[task.id]})"
            )
        seen[task.id] = number
        tasks.append(task)
    if not tasks:
        raise UsageError(f"{source}: no tasks in it")
    return tasks


def load_tasks(path: Path) -> list[BatchTask]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise UsageError(f"{path}: no such task file") from e
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot be read ({e})") from e
    return parse_tasks(text, str(path))
