"""Rules the user approved in `agent chat` with "yes, don't ask again in this project".

Kept per user, outside the workspace (`<user config>/approved-rules.json`, keyed by the
workspace's real path): the user chose them, so a repository can neither ship nor edit them, and
nothing lands in files that get committed.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_cli.core.files.private_file import write_private
from agent_cli.core.settings.schema import user_config_dir


class RulesFile(BaseModel):
    model_config = ConfigDict(extra="ignore")

    workspaces: dict[str, list[str]] = Field(
        default_factory=dict, description="Workspace real path -> allow patterns approved there."
    )


class ApprovedRules:
    """The allow patterns of one workspace; a file that cannot be read gives none."""

    def __init__(self, workspace: Path, path: Path | None = None) -> None:
        self.workspace = str(workspace.expanduser().resolve())
        self.path = path or user_config_dir() / "approved-rules.json"

    def patterns(self) -> list[str]:
        return list(self._load().workspaces.get(self.workspace, []))

    def add(self, pattern: str) -> None:
        data = self._load()
        known = data.workspaces.setdefault(self.workspace, [])
        if pattern not in known:
            known.append(pattern)
            self._save(data)

    def _load(self) -> RulesFile:
        try:
            return RulesFile.model_validate(json.loads(self.path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError):
            return RulesFile()

    def _save(self, data: RulesFile) -> None:
        write_private(self.path, data.model_dump_json(indent=2))
