"""The jobs of a session on disk: a JSON line when each starts and when it ends, beside their
output files, so a resumed session can list what its previous run left (all ended by then)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from agent_cli.core.files.paths import Paths, ensure_state_folder

log = logging.getLogger(__name__)

LEDGER = "jobs.jsonl"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class JobStarted(BaseModel):
    event: Literal["start"] = "start"
    id: str
    command: str
    pid: int
    output: str
    at: str


class JobEnded(BaseModel):
    event: Literal["end"] = "end"
    id: str
    exit_code: int | None
    how: str  # "exited", "killed", "stopped by the agent's exit", "kept"
    at: str


class PastJob(BaseModel):
    """A job of an earlier run of the session, as its records tell it."""

    id: str
    command: str
    pid: int
    output: str
    exit_code: int | None = None
    how: str = "ended with the agent"  # no end record: the run died, the watcher killed it


def folder(paths: Paths, session_id: str) -> Path:
    return paths.transcripts / "jobs" / session_id


def append(paths: Paths, session_id: str, record: JobStarted | JobEnded) -> None:
    try:
        target = ensure_state_folder(folder(paths, session_id)) / LEDGER
        with target.open("a", encoding="utf-8") as f:
            f.write(record.model_dump_json() + "\n")
    except OSError as e:  # a full disk loses the listing, never the job
        log.warning("could not record job %s: %s", record.id, e)


def past_jobs(paths: Paths, session_id: str) -> list[PastJob]:
    path = folder(paths, session_id) / LEDGER
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    jobs: dict[str, PastJob] = {}
    for line in lines:
        try:
            data = json.loads(line)
            if data.get("event") == "start":
                started = JobStarted.model_validate(data)
                jobs[started.id] = PastJob(**started.model_dump(exclude={"event", "at"}))
            elif data.get("event") == "end" and data.get("id") in jobs:
                ended = JobEnded.model_validate(data)
                jobs[ended.id].exit_code, jobs[ended.id].how = ended.exit_code, ended.how
        except (ValueError, ValidationError, AttributeError):
            continue  # a torn last line of a killed run
    return list(jobs.values())


def listing(jobs: list[PastJob]) -> str:
    """What the model and the user are told of a previous run's jobs."""
    lines = ["Background jobs of this session's previous run (all ended now):"]
    for job in jobs:
        status = f"exit {job.exit_code}" if job.how == "exited" else job.how
        lines.append(f"- {job.id} `{job.command}` ({status}); output: {job.output}")
    return "\n".join(lines)
