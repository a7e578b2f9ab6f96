"""What a sandboxed command may write and may not read, resolved to absolute paths."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# inside the workspace these stay read-only: the agent's state and what runs code later
PROTECTED_IN_WORKSPACE = (
    ".transcripts",
    "notes",
    "logs",
    ".agent",
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

    def writable(self) -> list[Path]:
        extra = [Path(p).expanduser() for p in self.write_paths]
        return [self.workspace, *extra]

    def read_only_inside(self) -> list[Path]:
        return [self.workspace / name for name in PROTECTED_IN_WORKSPACE]

    def hidden(self) -> list[Path]:
        own = [self.home / name for name in DENY_READ_IN_HOME]
        return own + [Path(p).expanduser() for p in self.deny_read]

    def tmpdir(self) -> Path:
        return self.workspace / ".agent" / "tmp"
