"""Every path under the state directory (SPEC §2)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

STATE_FOLDERS = (".transcripts", "notes", "logs", ".agent")


def result_file_stem(tool_use_id: str) -> str:
    """The file name (without .txt) of a tool result saved under `tool_results(session)`."""
    cleaned = "".join(c for c in tool_use_id if c.isalnum() or c in "_-")
    return cleaned or hashlib.sha256(tool_use_id.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Paths:
    state_dir: Path

    @property
    def transcripts(self) -> Path:
        return self.state_dir / ".transcripts"

    def transcript(self, session_id: str) -> Path:
        return self.transcripts / f"{session_id}.jsonl"

    @property
    def archive(self) -> Path:
        return self.transcripts / "archive"

    def archive_file(self, session_id: str, n: int) -> Path:
        return self.archive / f"{session_id}-{n}.jsonl"

    def tool_results(self, session_id: str) -> Path:
        return self.transcripts / "tool-results" / session_id

    @property
    def notes(self) -> Path:
        return self.state_dir / "notes"

    @property
    def index_db(self) -> Path:
        return self.notes / "index.sqlite3"

    @property
    def logs(self) -> Path:
        return self.state_dir / "logs"

    @property
    def agent_log(self) -> Path:
        return self.logs / "agent.log"

    @property
    def llm_calls(self) -> Path:
        return self.logs / "llm-calls.jsonl"

    def state_folders(self) -> list[Path]:
        return [self.state_dir / name for name in STATE_FOLDERS]
