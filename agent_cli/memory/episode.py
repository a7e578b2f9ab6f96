"""Episodes (SPEC §10): situation summaries of coding work that later sessions can find.

`EpisodeDraft` is what the generator model writes (its JSON schema goes into prompts/episode.md);
`Episode` is a draft plus what the program owns: id, session, workspace and timestamps.
Over-long text is trimmed in code rather than refused, so a useful episode is not dropped for a
long sentence; a wrong type or a missing field is refused.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

TITLE_CHARS = 120
TEXT_CHARS = 600
ITEM_CHARS = 300
MAX_ITEMS = 12
FINGERPRINT_RE = re.compile(r"^(?P<path>[^#\s]+)#L(?P<start>\d+)(?:-L?(?P<end>\d+))?$")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_episode_id() -> str:
    return f"ep-{datetime.now(UTC).strftime('%Y%m%d')}-{secrets.token_hex(3)}"


def _trim(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        value = " ".join(value.split())
        return value if len(value) <= limit else value[: limit - 1].rstrip() + "…"
    return value


def _trim_list(value: Any, limit: int = ITEM_CHARS) -> Any:
    if isinstance(value, list):
        items = [_trim(v, limit) for v in value]
        return [v for v in items if not (isinstance(v, str) and not v)][:MAX_ITEMS]
    return value


class CodeChange(BaseModel):
    """One change to the code made in the episode."""

    model_config = ConfigDict(extra="forbid")

    file: str = Field(min_length=1, description="Path of the changed file, relative to the repo.")
    symbol: str | None = Field(
        default=None, description="Function, class or section changed, when there is one."
    )
    summary: str = Field(min_length=1, max_length=ITEM_CHARS, description="What changed and why.")

    @field_validator("file", "symbol", "summary", mode="before")
    @classmethod
    def _short(cls, value: Any) -> Any:
        return _trim(value, ITEM_CHARS)


class _EpisodeBody(BaseModel):
    """The fields the generator writes and an episode keeps."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(
        min_length=1,
        max_length=TITLE_CHARS,
        description="A short name for the situation, e.g. 'Fix crash on empty input in parser'.",
    )
    core_problem: str = Field(
        min_length=1,
        max_length=TEXT_CHARS,
        description="The technical problem this stretch of work was about, in 1-2 sentences.",
    )
    key_decisions: list[str] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="Decisions that shape later work, each with its reason ('A over B because').",
    )
    code_changes: list[CodeChange] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="What changed in the code."
    )
    depends_on: list[str] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="Ids of earlier episodes this one builds on (only ids you were shown).",
    )
    open_issues: list[str] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="What is still unsolved or left to do next.",
    )
    code_fingerprints: list[str] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="Where the key code is, as 'path#Lstart-Lend' (e.g. 'src/x.py#L10-L42').",
    )

    @field_validator("title", mode="before")
    @classmethod
    def _short_title(cls, value: Any) -> Any:
        return _trim(value, TITLE_CHARS)

    @field_validator("core_problem", mode="before")
    @classmethod
    def _short_problem(cls, value: Any) -> Any:
        return _trim(value, TEXT_CHARS)

    @field_validator("key_decisions", "open_issues", "depends_on", mode="before")
    @classmethod
    def _short_items(cls, value: Any) -> Any:
        return _trim_list(value)

    @field_validator("code_changes", mode="before")
    @classmethod
    def _few_changes(cls, value: Any) -> Any:
        return value[:MAX_ITEMS] if isinstance(value, list) else value

    @field_validator("code_fingerprints", mode="before")
    @classmethod
    def _fingerprints(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [normalize_fingerprint(v) if isinstance(v, str) else v for v in value][:MAX_ITEMS]


def normalize_fingerprint(text: str) -> str:
    """'a.py#L3' -> 'a.py#L3-L3'; 'a.py#L3-9' -> 'a.py#L3-L9'; anything else raises."""
    match = FINGERPRINT_RE.match(text.strip())
    if match is None:
        raise ValueError(f"fingerprint {text!r} is not 'path#Lstart-Lend'")
    start = int(match["start"])
    end = int(match["end"] or start)
    if end < start:
        raise ValueError(f"fingerprint {text!r} ends before it starts")
    return f"{match['path']}#L{start}-L{end}"


class EpisodeDraft(_EpisodeBody):
    """The generator's reply: one episode, optionally revising an earlier one of this session."""

    revises: str | None = Field(
        default=None,
        description=(
            "Id of an earlier episode of this session that this one corrects or completes; "
            "that episode is updated instead of a new one being added. null otherwise."
        ),
    )


class Episode(_EpisodeBody):
    """A stored episode."""

    id: str = Field(description="Episode id, e.g. 'ep-20250101-a1b2c3'.")
    session: str = Field(description="Id of the session the episode was written in.")
    workspace: str = Field(default="", description="The workspace the work happened in.")
    created: str = Field(default_factory=now_iso, description="When it was first written (UTC).")
    updated: str = Field(default_factory=now_iso, description="When it was last revised (UTC).")

    def files(self) -> list[str]:
        return sorted({c.file for c in self.code_changes})

    def summary(self) -> dict[str, Any]:
        """The `agent memory list --json` object."""
        return {
            "id": self.id,
            "title": self.title,
            "core_problem": self.core_problem,
            "open_issues": self.open_issues,
            "files": self.files(),
            "session": self.session,
            "created": self.created,
            "updated": self.updated,
        }


def relative_path(path: str, workspace: Path | None) -> str:
    """A path inside the workspace as the repository names it; anything else unchanged."""
    path = path.strip()
    if workspace is not None and Path(path).is_absolute():
        try:
            return Path(path).resolve().relative_to(workspace.resolve()).as_posix()
        except ValueError:
            return path
    return path.removeprefix("./")
