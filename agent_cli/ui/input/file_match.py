"""`@path` completion across the whole workspace: the files ripgrep lists (`rg --files`, so
.gitignore is respected, in a git repository or not), matched fuzzily (the typed characters in
order), best first: a match inside the file name before one spread over folders, then the tighter
and the shorter."""

from __future__ import annotations

import re
import time
from pathlib import Path

from agent_cli.core.outside import spawn

SKIP = {".git", ".transcripts", "notes", "logs", ".agent", "__pycache__", ".venv", "node_modules"}
LIST_TTL_S = 5.0  # the file list is listed again after this (files come and go while chatting)
LIST_TIMEOUT_S = 2.0
MAX_FILES = 50_000
MAX_SHOWN = 40


class WorkspaceFiles:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._listed: tuple[float, list[str]] | None = None

    def files(self) -> list[str] | None:
        """Workspace-relative paths; None when ripgrep is not there (the caller walks folders)."""
        now = time.monotonic()
        if self._listed is not None and now - self._listed[0] < LIST_TTL_S:
            return self._listed[1]
        try:
            from agent_cli.tools.rg import RgMissing, find_rg  # after the first frame: lazily

            rg = find_rg(self.workspace)
        except RgMissing:
            return None
        args = [rg, "--files", "--no-config", "--hidden", "--no-require-git", "--color", "never"]
        for name in sorted(SKIP):
            args += ["--glob", f"!{name}"]
        try:
            run = spawn.run(
                args,
                cwd=self.workspace,
                capture_output=True,
                text=True,
                timeout=LIST_TIMEOUT_S,
                check=False,
            )
        except (OSError, spawn.TimeoutExpired):
            return None
        found = sorted(line for line in run.stdout.splitlines()[:MAX_FILES] if line)
        self._listed = (now, found)
        return found


def fuzzy(query: str, paths: list[str], limit: int = MAX_SHOWN) -> list[str]:
    """The paths holding the query's characters in order, best first."""
    if not query:
        return paths[:limit]
    pattern = re.compile(".*?".join(map(re.escape, query)), re.IGNORECASE)
    scored: list[tuple[tuple[int, int, int, int], str]] = []
    for path in paths:
        name_start = path.rfind("/") + 1
        in_name = pattern.search(path, name_start)
        found = in_name or pattern.search(path)
        if found is None:
            continue
        span = found.end() - found.start()
        scored.append(((0 if in_name else 1, span, found.start(), len(path)), path))
    scored.sort()
    return [path for _, path in scored[:limit]]
