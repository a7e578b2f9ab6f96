"""Everything project files give one agent: the spine's port `"workspace_part"`
(runtime/workspace_part.py), whose values the composition root asks for in dependency order:
permission rules and the approver's wrapper first (the permissions are built from them), then
tools (`skill`), `task`'s subagent types, the gate's and the loop's hooks, the skills block of
the system prompt. With project files off, `NoProjectFiles` answers every question with
"nothing"."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.tool_contract import AnyTool
from agent_cli.ext.project_files.agent_types import AgentTypes
from agent_cli.ext.project_files.catalog import load_project_files
from agent_cli.ext.project_files.claude.hook_ports import (
    ClaudeToolHooks,
    ClaudeTurnHooks,
    NotifyingApprover,
    PreCompactHooks,
)
from agent_cli.ext.project_files.claude.hooks import ClaudeHooks
from agent_cli.ext.project_files.command_turn import CommandTurns
from agent_cli.ext.project_files.definitions import Definition
from agent_cli.ext.project_files.skill_tool import Skill
from agent_cli.ext.project_files.skills import SkillState, listing, model_skills
from agent_cli.policy.approval import Approver
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.policy.turn_hooks import TurnHooks
from agent_cli.runtime.extensions.bundle_port import bundles_of
from agent_cli.runtime.workspace_part import (
    NoWorkspacePart,
    WorkspacePart,
    WorkspaceParts,
    WorkspaceRules,
)

if TYPE_CHECKING:
    from agent_cli.context.ports import Compactor
    from agent_cli.policy.gate import ToolHooks
    from agent_cli.runtime.bundles import Bundle
    from agent_cli.runtime.extensions.contract import ExtensionContext
    from agent_cli.session.state import Session
    from agent_cli.tools.registry import ToolRegistry


class NoProjectFiles(NoWorkspacePart):
    """Project files are off (`project_files.enabled: false`): they give nothing, not even
    the built-in `explore` type."""

    def agent_types(self, permissions: Permissions, hooks: Hooks) -> AgentTypes | None:
        return None


class LoadedProjectFiles:
    """A workspace's `.claude/`, `.agents/` and `.agent/` files, loaded once."""

    def __init__(
        self, session: Session, workspace: Path, resumed: bool, bundles: Sequence[Bundle] = ()
    ) -> None:
        self.session, self.workspace = session, workspace
        self.files = load_project_files(workspace, bundles=bundles)
        self.rules = WorkspaceRules(
            self.files.rule_patterns("allow"),
            self.files.rule_patterns("deny"),
            self.files.rule_patterns("ask"),
        )
        settings = session.settings
        self.claude = ClaudeHooks(
            self.files.active_hooks(),
            session.id,
            workspace,
            session.paths.transcript(session.id),
            settings.permissions.mode,
        )
        self._limit = settings.project_files.stop_blocks_per_turn
        self._turns = (
            ClaudeTurnHooks(
                self.claude, self._limit, resumed=resumed, secrets=session.tool_ctx.secrets
            )
            if self.claude.hooks
            else None
        )
        self._gate_hooks: list[ToolHooks] = (
            [ClaudeToolHooks(self.claude)] if self.claude.hooks else []
        )
        self.skills = SkillState()
        self._offered = model_skills(self.files.skills.items)
        if self._offered:
            session.view_providers.append(self.skills.view)

    def approver(self, inner: Approver) -> Approver:
        return NotifyingApprover(inner, self.claude) if self.claude.hooks else inner

    def gate_hooks(self) -> list[ToolHooks]:
        return list(self._gate_hooks)

    def tools(self, permissions: Permissions) -> list[AnyTool]:
        """The `skill` tool, when the workspace has skills for the model."""
        if not self._offered:
            return []

        def grant(skill: Definition) -> None:  # a skill's allowed-tools, for the rest of its turn
            if self.files.allows(skill, "tools"):
                permissions.turn_allow = [*permissions.turn_allow, *skill.patterns]

        return [Skill({s.name: s for s in self._offered}, self.skills, grant)]

    def system_section(self) -> str:
        if not self._offered:
            return ""
        limits = self.session.settings.project_files
        return listing(
            self._offered,
            self.workspace,
            limits.skill_description_chars,
            limits.skills_listing_chars,
        )

    def agent_types(self, permissions: Permissions, hooks: Hooks) -> AgentTypes | None:
        session = self.session
        return AgentTypes(
            self.files,
            session.settings,
            lambda: session.model,
            permissions,
            hooks,
            self._gate_hooks,
        )

    def commands(self, registry: ToolRegistry, permissions: Permissions) -> TurnHooks | None:
        return CommandTurns(self.files, self.session, registry, permissions, self.skills)

    def turn_hooks(self, ours: Hooks, commands: TurnHooks | None) -> list[TurnHooks]:
        """In order: the command's expansion, our hooks, Claude Code's."""
        hooks: list[TurnHooks] = [ours]
        if commands is not None:
            hooks.insert(0, commands)
        if self._turns is not None:
            hooks.append(self._turns)
        return hooks

    def child_hooks(self) -> TurnHooks | None:
        if not self.claude.hooks:
            return None
        return ClaudeTurnHooks(self.claude, self._limit, "SubagentStop")

    def around_compaction(self, compactor: Compactor) -> Compactor:
        """PreCompact hooks before `compact`/`/compact` (manual) and prompt-too-long (auto)."""
        if not self.claude.has("PreCompact"):
            return compactor
        return PreCompactHooks(compactor, self.claude)

    async def session_end(self, reason: str) -> None:
        if self.claude.has("SessionEnd"):
            await self.claude.fire("SessionEnd", reason=reason)


def project_part(
    session: Session, workspace: Path, resumed: bool, bundles: Sequence[Bundle] = ()
) -> WorkspacePart:
    if not session.settings.project_files.enabled:
        return NoProjectFiles(session)
    return LoadedProjectFiles(session, workspace, resumed, bundles)


def workspace_parts(context: ExtensionContext) -> WorkspaceParts:
    """The port `"workspace_part"`: each session's part, from this workspace's files and what
    the enabled plugins bring (the port `"plugin_bundles"`)."""
    bundles = bundles_of(context.ports).bundles()
    return lambda session, resumed: project_part(session, context.workspace, resumed, bundles)
