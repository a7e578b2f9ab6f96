"""skill: the model loads a skill's body, or a file beside it by its path relative to the
skill's folder (never outside that folder). A skill's `allowed-tools` are granted for the rest
of the turn, when its workspace is trusted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import Field

from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult
from agent_cli.ext.project_files.definitions import Definition
from agent_cli.ext.project_files.skills import SkillState

MAX_FILE_CHARS = 50_000


class SkillInput(ToolInput):
    name: str = Field(min_length=1, max_length=128, description="The skill's name, as listed.")
    file: str | None = Field(
        default=None,
        max_length=1_000,
        description="A file in the skill's folder, relative to it (e.g. references/patterns.md), "
        "to read instead of the skill's instructions.",
    )


class Skill(Tool[SkillInput]):
    name = "skill"
    input_model = SkillInput
    read_only = True

    def __init__(
        self, skills: dict[str, Definition], state: SkillState, grant: Callable[[Definition], None]
    ) -> None:
        self._skills = skills
        self._state = state
        self._grant = grant  # the skill's allowed-tools for this turn (trust permitting)

    def describe_call(self, args: SkillInput) -> str:
        return f"skill {args.name}" + (f" {args.file}" if args.file else "")

    async def run(self, args: SkillInput, ctx: ToolContext) -> ToolResult:
        skill = self._skills.get(args.name.strip().removeprefix("/"))
        if skill is None:
            known = ", ".join(sorted(self._skills)) or "none"
            return ToolResult(
                f"No skill named {args.name!r}. Skills: {known}.",
                is_error=True,
                summary=f"skill {args.name}: unknown",
            )
        if args.file:
            return _read_beside(skill, args.file)
        text = self._state.load(skill)
        self._grant(skill)
        return ToolResult(text, summary=f"skill {skill.name} loaded")


def _read_beside(skill: Definition, relative: str) -> ToolResult:
    folder = Path(skill.meta["folder"]).resolve()
    path = (folder / relative).resolve()
    label = f"skill {skill.name} {relative}"
    if not path.is_relative_to(folder):
        return ToolResult(
            f"{relative} is outside the folder of skill {skill.name}.",
            is_error=True,
            summary=f"{label}: refused",
        )
    if not path.is_file():
        present = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
        return ToolResult(
            f"No file {relative} in skill {skill.name}'s folder. Files: "
            f"{', '.join(present[:50]) or 'none'}.",
            is_error=True,
            summary=f"{label}: not found",
        )
    text = path.read_text(encoding="utf-8", errors="replace")
    cut = len(text) - MAX_FILE_CHARS
    if cut > 0:
        text = text[:MAX_FILE_CHARS] + f"\n[... {cut:,} more characters]"
    return ToolResult(text, summary=f"{label} ({len(text):,} chars)")
