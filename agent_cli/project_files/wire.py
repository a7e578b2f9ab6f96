"""Everything project files add to one agent, gathered for the composition root: tools
(`skill`), `task`'s subagent types, the gate's and the loop's hooks, permission rules, the
skills block of the system prompt."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from agent_cli.core.tool_contract import AnyTool
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.policy.turn_hooks import TurnHooks
from agent_cli.project_files.agent_types import AgentTypes
from agent_cli.project_files.catalog import ProjectFiles, load_project_files
from agent_cli.project_files.claude.hook_ports import (
    ClaudeToolHooks,
    ClaudeTurnHooks,
    NotifyingApprover,
    PreCompactHooks,
)
from agent_cli.project_files.claude.hooks import ClaudeHooks
from agent_cli.project_files.command_turn import CommandTurns
from agent_cli.project_files.definitions import Definition
from agent_cli.project_files.skill_tool import Skill
from agent_cli.project_files.skills import SkillState, listing, model_skills

if TYPE_CHECKING:
    from agent_cli.policy.gate import ToolHooks
    from agent_cli.session.state import Session
    from agent_cli.tools.registry import ToolRegistry


C = TypeVar("C", bound=Any)  # the loop's Compactor (built above this floor)


@dataclass
class Wiring:
    files: ProjectFiles
    claude: ClaudeHooks
    tools: list[AnyTool] = field(default_factory=list)
    gate_hooks: list[ToolHooks] = field(default_factory=list)
    system_section: str = ""
    agent_types: AgentTypes | None = None
    skills: SkillState = field(default_factory=SkillState)
    _commands: CommandTurns | None = None
    _turns: ClaudeTurnHooks | None = None

    def turn_hooks(self, ours: Hooks) -> list[TurnHooks]:
        """In order: the command's expansion, our hooks, Claude Code's."""
        hooks: list[TurnHooks] = [ours]
        if self._commands is not None:
            hooks.insert(0, self._commands)
        if self._turns is not None:
            hooks.append(self._turns)
        return hooks

    def child_hooks(self, limit: int) -> TurnHooks | None:
        return ClaudeTurnHooks(self.claude, limit, "SubagentStop") if self.claude.hooks else None

    def around_compaction(self, compactor: C) -> C:
        """PreCompact hooks before `compact`/`/compact` (manual) and prompt-too-long (auto)."""
        if not self.claude.has("PreCompact"):
            return compactor
        return cast(C, PreCompactHooks(compactor, self.claude))

    async def session_end(self, reason: str) -> None:
        if self.claude.has("SessionEnd"):
            await self.claude.fire("SessionEnd", reason=reason)

    def bind(self, registry: ToolRegistry, session: Session, permissions: Permissions) -> None:
        self._commands = CommandTurns(self.files, session, registry, permissions, self.skills)


def wire(
    session: Session, workspace: Path, permissions: Permissions, hooks: Hooks, resumed: bool
) -> Wiring | None:
    settings = session.settings
    if not settings.project_files.enabled:
        return None
    files = load_project_files(workspace)
    permissions.extra_allow += files.rule_patterns("allow")
    permissions.extra_deny += files.rule_patterns("deny")
    permissions.ask_rules += files.rule_patterns("ask")
    claude = ClaudeHooks(
        files.active_hooks(),
        session.id,
        workspace,
        session.paths.transcript(session.id),
        permissions.mode,
    )
    wiring = Wiring(files, claude)
    if claude.hooks:
        wiring.gate_hooks.append(ClaudeToolHooks(claude))
        wiring._turns = ClaudeTurnHooks(
            claude,
            settings.project_files.stop_blocks_per_turn,
            resumed=resumed,
            secrets=session.tool_ctx.secrets,
        )
        permissions.approver = NotifyingApprover(permissions.approver, claude)
    wiring.agent_types = AgentTypes(
        files, settings, lambda: session.model, permissions, hooks, wiring.gate_hooks
    )
    _add_skills(wiring, session, workspace, permissions)
    return wiring


def _add_skills(
    wiring: Wiring, session: Session, workspace: Path, permissions: Permissions
) -> None:
    skills = model_skills(wiring.files.skills.items)
    if not skills:
        return
    limits = session.settings.project_files

    def grant(skill: Definition) -> None:
        if wiring.files.allows(skill, "tools"):
            permissions.turn_allow = [*permissions.turn_allow, *skill.patterns]

    offered = {s.name: s for s in skills}
    wiring.tools.append(Skill(offered, wiring.skills, grant))
    wiring.system_section = listing(
        skills, workspace, limits.skill_description_chars, limits.skills_listing_chars
    )
    session.view_providers.append(wiring.skills.view)
