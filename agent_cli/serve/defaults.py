"""What `agent acp`'s and `agent mcp serve`'s own flags set for every session they open."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.options import PermissionMode


@dataclass
class Defaults:
    model: str | None = None
    permission_mode: PermissionMode | None = None
    state_dir: Path | None = None
