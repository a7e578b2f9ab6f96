"""The built-in subagent type `explore`, and what every type's listing and gate share.

`task` offers `explore` in every session: a workspace's own agent files (project files, an
extension) add types beside it and may replace it; without them these are the only types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_cli.core.settings.schema import Settings
from agent_cli.policy.approval import HeadlessApprover
from agent_cli.policy.gate import PolicyGate, ToolHooks
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions

if TYPE_CHECKING:
    from agent_cli.subagent.profile import SubagentProfile

NAME = "explore"
DESCRIPTION = (
    "Read-only exploration: finds files, reads code and answers a question about "
    "the repository without changing anything."
)
TOOLS = ("read_file", "glob", "grep")
MODE = "plan"
COLOR = "cyan"
BODY = (
    "You are an exploration subagent. You only read: search with glob and grep, open "
    "files with read_file, and never change anything. Be quick and precise: answer the task "
    "with file paths and line numbers as evidence."
)
HEADER = "Subagent types (`agent_type`; omit it for a general subagent):"


def listing(types: Sequence[tuple[str, str]], cap: int) -> str:
    """`task`'s lines of (name, description), cut at about `cap` characters."""
    lines = [HEADER]
    used = len(lines[0])
    for name, description in types:
        line = f"- {name}: {description[:300]}"
        if used + len(line) > cap:
            lines.append("- ... (more types: an unknown agent_type lists every name)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def narrowed_gate(
    permissions: Permissions, mode: str, ask: bool, hooks: Hooks, extra: Sequence[ToolHooks]
) -> PolicyGate | None:
    """A type's own gate in `mode` (never wider: the caller checked); None when the
    session's gate is the same. `ask`: questions reach the user, else they are denied."""
    if mode == permissions.mode and ask:
        return None
    settings = permissions.settings.model_copy(update={"mode": mode})
    approver = permissions.approver if ask else HeadlessApprover()
    narrowed = replace(
        permissions, settings=settings, approver=approver, session_allow=[], turn_allow=[]
    )
    return PolicyGate(narrowed, hooks, extra)


class ExploreOnly:
    """The subagent types of a session without project files: `explore` alone."""

    def __init__(
        self,
        settings: Settings,
        parent_model: Callable[[], str],
        permissions: Permissions,
        hooks: Hooks,
    ) -> None:
        self.settings, self.parent_model = settings, parent_model
        self.permissions, self.hooks = permissions, hooks

    def names(self) -> list[str]:
        return [NAME]

    def listing(self) -> str:
        return listing([(NAME, DESCRIPTION)], self.settings.project_files.agent_types_chars)

    def profile(self, name: str) -> SubagentProfile | None:
        if name.strip() != NAME:
            return None
        from agent_cli.subagent.profile import SubagentProfile  # a task asks for the type

        return SubagentProfile(
            name=NAME,
            system=BODY,
            tools=frozenset(TOOLS),
            model=self.parent_model(),
            gate=narrowed_gate(self.permissions, MODE, True, self.hooks, ()),
            color=COLOR,
        )
