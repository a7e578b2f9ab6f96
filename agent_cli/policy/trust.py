"""Workspace trust: which workspaces the user has agreed may widen what runs unasked.

A cloned repository is not trusted because it is on disk. Whatever it ships that would run
programs or skip questions (permission mode and allow rules in its settings, hooks, MCP servers,
a command's `allowed-tools`) takes effect only once the user has trusted that workspace with
`agent trust` (or the one question `agent chat` asks). Narrowing things always apply.

Trust is kept per user, outside every workspace (`<user config>/trusted.json`), so a repository
cannot trust itself. Each grant also records fingerprints of the items the user saw (an MCP
server's command line, say): an item whose fingerprint changed since is not covered and is asked
again.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_cli.core.settings.schema import user_config_dir

ENV_TRUST = "AGENT_TRUST_WORKSPACE"
"""Set to 1 to trust the workspace for one invocation (CI, scripts) without recording it."""


def fingerprint(*parts: str) -> str:
    """A stable digest of what the user was shown for one item (a command line, say)."""
    digest = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


class TrustGrant(BaseModel):
    """One trusted workspace."""

    model_config = ConfigDict(extra="ignore")

    trusted_at: str = Field(description="When the user trusted it (UTC, ISO 8601).")
    items: dict[str, str] = Field(
        default_factory=dict,
        description="Item key (e.g. 'mcp:github') -> fingerprint of what the user saw.",
    )


class TrustFile(BaseModel):
    model_config = ConfigDict(extra="ignore")

    workspaces: dict[str, TrustGrant] = Field(default_factory=dict)


def _key(workspace: Path) -> str:
    return str(workspace.expanduser().resolve())


class TrustStore:
    """The user's trusted workspaces. A store that cannot be read trusts nothing."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or user_config_dir() / "trusted.json"

    def _load(self) -> TrustFile:
        try:
            return TrustFile.model_validate(json.loads(self.path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError):
            return TrustFile()

    def _save(self, data: TrustFile) -> None:
        from agent_cli.core.files.private_file import write_private  # only to write

        write_private(self.path, data.model_dump_json(indent=2))

    def grant(self, workspace: Path) -> TrustGrant | None:
        return self._load().workspaces.get(_key(workspace))

    def is_trusted(self, workspace: Path) -> bool:
        return os.environ.get(ENV_TRUST) == "1" or self.grant(workspace) is not None

    def covers(self, workspace: Path, item: str, item_fingerprint: str) -> bool:
        """True when the workspace is trusted and `item` was seen as it is now (or trusted
        through the environment for this invocation)."""
        if os.environ.get(ENV_TRUST) == "1":
            return True
        grant = self.grant(workspace)
        return grant is not None and grant.items.get(item) == item_fingerprint

    def trust(self, workspace: Path, items: dict[str, str] | None = None) -> TrustGrant:
        data = self._load()
        grant = TrustGrant(
            trusted_at=datetime.now(UTC).isoformat(timespec="seconds"), items=dict(items or {})
        )
        data.workspaces[_key(workspace)] = grant
        self._save(data)
        return grant

    def revoke(self, workspace: Path) -> bool:
        data = self._load()
        removed = data.workspaces.pop(_key(workspace), None) is not None
        if removed:
            self._save(data)
        return removed

    def trusted(self) -> dict[str, TrustGrant]:
        return dict(self._load().workspaces)


class TrustItem(BaseModel):
    """One thing a workspace asks for that trust would let run unasked."""

    key: str = Field(description="Stable key, e.g. 'hook:pre_tool_use:0' or 'mcp:github'.")
    source: str = Field(description="The file it comes from.")
    description: str = Field(description="What the user is shown: a command line, a rule.")

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key, self.description)


def grant_items(items: list[TrustItem]) -> dict[str, str]:
    return {item.key: item.fingerprint for item in items}
