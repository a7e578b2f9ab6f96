"""A file only its owner may read, written whole or not at all.

Trust grants, approved rules and the user's MCP servers (whose headers may carry tokens) are
kept so: a new file in the same folder, mode 0600, renamed over the old one, so a crash leaves
the old content or the new, never half, and nobody else ever sees either.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:40]}-", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        Path(tmp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise
