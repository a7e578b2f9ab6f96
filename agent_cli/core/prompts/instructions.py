"""Project instructions (SPEC §11): AGENTS.md (else CLAUDE.md) from the workspace root and the
user's ~/.config/agent/AGENTS.md, size-capped, for the system prompt and for the view restored
after a summary compaction."""

from __future__ import annotations

import logging
from pathlib import Path

from agent_cli.core.settings.schema import user_config_dir

log = logging.getLogger(__name__)

PROJECT_FILES = ("AGENTS.md", "CLAUDE.md")
HEADER = (
    "# Project instructions\n"
    "The user's own instructions, then this project's (the project's win where they conflict)."
)


def project_file(workspace: Path) -> Path | None:
    for name in PROJECT_FILES:
        path = workspace / name
        if path.is_file():
            return path
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError as e:
        log.warning("cannot read %s: %s", path, e)
        return ""


def _cap(text: str, limit: int, path: Path) -> str:
    if len(text) <= limit:
        return text
    log.info("%s cut to %d of %d characters", path, limit, len(text))
    return (
        f"{text[:limit]}\n[... cut: {path} has {len(text):,} characters; "
        "read it with read_file for the rest]"
    )


def project_instructions(workspace: Path, max_chars: int) -> str:
    """The section for the system prompt, or '' when there are none (or the cap is 0)."""
    if max_chars <= 0:
        return ""
    project = project_file(workspace)
    user = user_config_dir() / "AGENTS.md"
    project_text = _read(project) if project else ""
    user_text = _read(user) if user.is_file() else ""
    # the project's file has the first claim on the budget
    project_text = _cap(project_text, max_chars, project) if project else ""
    user_budget = max(0, max_chars - len(project_text))
    user_text = _cap(user_text, user_budget, user) if user_text and user_budget else ""
    parts = []
    if user_text:
        parts.append(f"## From {user} (the user's)\n{user_text}")
    if project_text and project is not None:
        parts.append(f"## From {project.name} (this project)\n{project_text}")
    return "\n\n".join([HEADER, *parts]) if parts else ""
