"""What a sandboxed command may write and may not read, resolved to absolute paths."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.core.files.paths import STATE_FOLDERS, make_dirs

# inside the workspace these stay read-only: the agent's state and what runs code later
PROTECTED_IN_WORKSPACE = (
    *STATE_FOLDERS,
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".git/config",
    ".git/hooks",
)
# credentials, hidden behind empty mounts
DENY_READ_IN_HOME = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".netrc",
    ".docker/config.json",
    ".kube",
    ".config/agent",
)


@dataclass(frozen=True)
class SandboxPolicy:
    """The rules for one workspace; paths are resolved when the command is wrapped."""

    workspace: Path
    home: Path = field(default_factory=Path.home)
    write_paths: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    state_dir: Path | None = None  # the agent's state when it is not the workspace
    # directories added with /add-dir: writable, with the workspace's protected files read-only
    added: tuple[Path, ...] = ()

    def writable(self) -> list[Path]:
        extra = [Path(p).expanduser() for p in self.write_paths]
        return [self.workspace, *self.added, *extra]

    def read_only_inside(self) -> list[Path]:
        roots = (self.workspace, *self.added)
        own = [root / name for root in roots for name in PROTECTED_IN_WORKSPACE]
        state = [self.state_dir / name for name in STATE_FOLDERS] if self.state_dir else []
        return own + state

    def hidden(self) -> list[Path]:
        own = [self.home / name for name in DENY_READ_IN_HOME]
        return own + [Path(p).expanduser() for p in self.deny_read]

    def tmpdir(self) -> Path:
        return self.workspace / ".agent" / "tmp"

    def prepare(self) -> None:
        """A protected folder that is missing could be created and filled by the command, so
        the agent's own (each with its .gitignore) and `.git/hooks` are made first."""
        make_dirs(self.tmpdir())
        for name in STATE_FOLDERS:
            make_dirs(self.workspace / name)
        for root in (self.workspace, *self.added):
            if (root / ".git").is_dir():
                (root / ".git" / "hooks").mkdir(exist_ok=True)
