"""What a workspace's own files add to a session (its permission rules, hooks, subagent types,
slash commands and skills), as the composition root asks for it: the port `"workspace_part"`.

The project-files extension answers it when the workspace (or the user's folders) has such
files; otherwise `NoWorkspacePart` answers every question with "nothing", and `task` knows the
built-in `explore` type alone, so the root never checks for an absence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from agent_cli.subagent.explore import ExploreOnly

if TYPE_CHECKING:
    from agent_cli.context.ports import Compactor
    from agent_cli.core.tool_contract import AnyTool
    from agent_cli.policy.approval import Approver
    from agent_cli.policy.gate import ToolHooks
    from agent_cli.policy.hooks import Hooks
    from agent_cli.policy.permissions import Permissions
    from agent_cli.policy.turn_hooks import TurnHooks
    from agent_cli.session.state import Session
    from agent_cli.subagent.profile import SubagentTypes
    from agent_cli.tools.registry import ToolRegistry

PORT = "workspace_part"


@dataclass(frozen=True)
class WorkspaceRules:
    """Permission rules the workspace's files add to the settings'."""

    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)


class WorkspacePart(Protocol):
    """What the composition root asks of the workspace's files, in the order it asks."""

    rules: WorkspaceRules

    def approver(self, inner: Approver) -> Approver: ...

    def gate_hooks(self) -> list[ToolHooks]: ...

    def tools(self, permissions: Permissions) -> list[AnyTool]: ...

    def system_section(self) -> str: ...

    def agent_types(self, permissions: Permissions, hooks: Hooks) -> SubagentTypes | None: ...

    def commands(self, registry: ToolRegistry, permissions: Permissions) -> TurnHooks | None:
        """What expands a `/command` prompt before the turn (the first turn hook)."""
        ...

    def turn_hooks(self, ours: Hooks, commands: TurnHooks | None) -> list[TurnHooks]: ...

    def child_hooks(self) -> TurnHooks | None: ...

    def around_compaction(self, compactor: Compactor) -> Compactor: ...

    async def session_end(self, reason: str) -> None: ...


class WorkspaceParts(Protocol):
    """The port: a session's part, made once per session (`resumed`: it has messages)."""

    def __call__(self, session: Session, resumed: bool) -> WorkspacePart: ...


class NoWorkspacePart:
    """No files of the workspace's own: nothing is added, and `task` offers `explore`."""

    rules = WorkspaceRules()

    def __init__(self, session: Session) -> None:
        self.session = session

    def approver(self, inner: Approver) -> Approver:
        return inner

    def gate_hooks(self) -> list[ToolHooks]:
        return []

    def tools(self, permissions: Permissions) -> list[AnyTool]:
        return []

    def system_section(self) -> str:
        return ""

    def agent_types(self, permissions: Permissions, hooks: Hooks) -> SubagentTypes | None:
        session = self.session
        return ExploreOnly(session.settings, lambda: session.model, permissions, hooks)

    def commands(self, registry: ToolRegistry, permissions: Permissions) -> TurnHooks | None:
        return None

    def turn_hooks(self, ours: Hooks, commands: TurnHooks | None) -> list[TurnHooks]:
        return [ours]

    def child_hooks(self) -> TurnHooks | None:
        return None

    def around_compaction(self, compactor: Compactor) -> Compactor:
        return compactor

    async def session_end(self, reason: str) -> None:
        return None
