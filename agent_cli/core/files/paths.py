"""Every path under the state directory (SPEC §2)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.errors import StateWriteError

STATE_FOLDERS = (".transcripts", "notes", "logs", ".agent")
# what each state folder's own .gitignore says when the agent creates it: the user's `git status`
# never shows them, and the user's .gitignore is never edited. `.agent/settings.json` is the
# user's to commit, so it stays visible.
GITIGNORE_OF = {".agent": "*\n!settings.json\n"}
IGNORE_ALL = "*\n"


def make_dirs(folder: Path) -> Path:
    """`mkdir -p folder`; a state folder created on the way gets its own .gitignore."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    for created in missing:
        if created.name in STATE_FOLDERS:
            ignore_file = created / ".gitignore"
            if not ignore_file.exists():
                ignore_file.write_text(GITIGNORE_OF.get(created.name, IGNORE_ALL))
    return folder


def ensure_state_folder(folder: Path) -> Path:
    """A folder of the agent's own anywhere under the state directory: ignored as a whole."""
    if not folder.is_dir():
        make_dirs(folder)
        ignore_file = folder / ".gitignore"
        if not ignore_file.exists():
            ignore_file.write_text(IGNORE_ALL)
    return folder


def result_file_stem(tool_use_id: str) -> str:
    """The file name (without .txt) of a tool result saved under `tool_results(session)`."""
    cleaned = "".join(c for c in tool_use_id if c.isalnum() or c in "_-")
    import hashlib  # here: the session listing imports this module and needs neither

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

    def fixed_places(self) -> list[Path]:
        """The folders and files of fixed names the agent writes its state into."""
        return [
            *self.state_folders(),
            self.archive,
            self.transcripts / "tool-results",
            self.index_db,
            self.agent_log,
            self.llm_calls,
        ]

    def require_real(self) -> None:
        """StateWriteError when one of the fixed places is a symbolic link: a repository that
        ships `logs/agent.log -> ~/.bashrc` or `.transcripts -> elsewhere` would have the
        agent write where it chose, outside the state directory."""
        for place in self.fixed_places():
            if place.is_symlink():
                raise StateWriteError(
                    f"{place} is a symbolic link (a repository may have shipped it); the agent "
                    "writes its state only into real files and folders: remove the link, or "
                    "run with --state-dir DIR (or AGENT_STATE_DIR=DIR)"
                )

    def require_writable(self) -> None:
        """StateWriteError, with what to do, when transcripts cannot be written here (or a
        place of the state is a link)."""
        self.require_real()
        try:
            make_dirs(self.transcripts)  # created here first: it gets its own .gitignore
            import tempfile

            fd, probe = tempfile.mkstemp(dir=self.transcripts, prefix=".probe-")
            os.close(fd)
            Path(probe).unlink()
        except OSError as e:
            raise state_write_error(self.state_dir, e) from e

    @property
    def checkpoints(self) -> Path:
        return self.state_dir / ".agent" / "checkpoints"

    def state_folders(self) -> list[Path]:
        return [self.state_dir / name for name in STATE_FOLDERS]


def state_write_error(path: Path, error: OSError) -> StateWriteError:
    return StateWriteError(
        f"cannot write {path}: {error.strerror or error}. Free some space, or run with "
        "--state-dir DIR (or AGENT_STATE_DIR=DIR) pointing at a writable folder"
    )
