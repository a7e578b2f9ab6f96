"""Protected files that did not exist when a sandboxed command started (`.claude/settings.json`,
say) cannot be mounted read-only: there is nothing to mount, and making the mount point would
leave an empty file in the workspace. One the command created is moved aside when it ends (never
deleted: the user may have written it meanwhile), and the result says so."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# git init may create .git/config legitimately; these only ever shape the agent's next session
WATCHED = (".claude/settings.json", ".claude/settings.local.json")
SUFFIX = ".sandbox-rejected"


def _there(path: Path) -> bool:
    return path.exists() or path.is_symlink()


@dataclass(frozen=True)
class Absent:
    """The watched files missing before a command; `settle()` once it has ended."""

    workspace: Path
    paths: tuple[Path, ...]
    folder_was_there: bool  # `.claude`: one the command made a symlink is moved aside whole

    @classmethod
    def before(cls, workspace: Path) -> Absent:
        paths = tuple(workspace / name for name in WATCHED if not _there(workspace / name))
        return cls(workspace, paths, _there(workspace / ".claude"))

    def settle(self) -> list[str]:
        """The notes for what the command created (each moved to `<name>.sandbox-rejected`)."""
        folder = self.workspace / ".claude"
        if self.paths and not self.folder_was_there and folder.is_symlink():
            return [self._aside(folder)]  # not what it points at, which may be anyone's
        return [self._aside(path) for path in self.paths if _there(path)]

    def _aside(self, path: Path) -> str:
        aside = _free(path.with_name(path.name + SUFFIX))
        path.rename(aside)
        rel, moved = path.relative_to(self.workspace), aside.relative_to(self.workspace)
        return (
            f"[sandbox: {rel} is protected; the command created it, so it was moved to "
            f"{moved}. Write it with write_file (asked) if it is wanted]"
        )


def _free(path: Path) -> Path:
    n, candidate = 1, path
    while candidate.exists() or candidate.is_symlink():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate
