"""The main system prompt: the shipped template, the environment, and extra sections
(project instructions, recent episodes) that other parts contribute."""

from __future__ import annotations

import platform
from datetime import date
from pathlib import Path

from agent_cli.core.messages import Block
from agent_cli.core.prompts.templates import load_prompt


def environment_section(workspace: Path) -> str:
    return (
        "# Environment\n"
        f"Workspace (the current directory of every command): {workspace}\n"
        f"Platform: {platform.system()} {platform.release()}\n"
        f"Date: {date.today().isoformat()}"
    )


def build_system(workspace: Path, template: str, sections: list[str]) -> list[Block]:
    parts = [load_prompt(template, workspace).strip(), environment_section(workspace)]
    return build_system_text([*parts, *sections])


def build_system_text(parts: list[str]) -> list[Block]:
    return [{"type": "text", "text": "\n\n".join(p.strip() for p in parts if p.strip())}]
