"""Prompt templates: shipped in the package (from the repository's `prompts/`), overridable by a
file of the same name in the workspace's `prompts/`."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[2]  # agent_cli/


def shipped_prompts_dir() -> Path:
    installed = _PACKAGE / "prompts"  # a wheel carries them inside the package
    return installed if installed.is_dir() else _PACKAGE.parent / "prompts"


@cache
def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def load_prompt(name: str, workspace: Path | None = None) -> str:
    """`name` is relative to prompts/, e.g. 'system.md' or 'tools/bash.md'."""
    if workspace is not None:
        override = workspace / "prompts" / name
        if override.is_file():
            return override.read_text(encoding="utf-8")
    return _read(shipped_prompts_dir() / name)
