"""A file only its owner may read, written whole or not at all; and such a file's JSON object
read back for an edit that keeps its other keys.

Trust grants, approved rules and the user's MCP servers (whose headers may carry tokens) are
kept so: a new file in the same folder, mode 0600, renamed over the old one, so a crash leaves
the old content or the new, never half, and nobody else ever sees either.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from agent_cli.core.errors import ConfigError


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


def read_object(path: Path) -> dict[str, Any]:
    """The JSON object a settings-like file holds ({} when it is missing or blank); a file that
    cannot be read or is not an object is a ConfigError naming it, never overwritten."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it ({e.strerror})") from e
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ConfigError(f"{path}: not valid JSON ({e}); fix it first") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must hold a JSON object")
    return data
