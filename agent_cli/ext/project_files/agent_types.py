"""Subagent types for `task`'s `agent_type`: each project file (or the built-in `explore`)
becomes a profile: its tools, model alias resolved, body as system prompt, permission mode
mapped and never wider than the session's, turn limit and colour."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from agent_cli.core.settings.schema import Settings
from agent_cli.ext.project_files import vocabulary as vocab
from agent_cli.ext.project_files.catalog import ProjectFiles
from agent_cli.ext.project_files.definitions import Definition
from agent_cli.policy.approval import HeadlessApprover
from agent_cli.policy.gate import PolicyGate, ToolHooks
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.subagent.profile import SubagentProfile


class AgentTypes:
    def __init__(
        self,
        files: ProjectFiles,
        settings: Settings,
        parent_model: Callable[[], str],
        permissions: Permissions,
        hooks: Hooks,
        extra: Sequence[ToolHooks],
    ) -> None:
        self.files = files
        self.settings = settings
        self.parent_model = parent_model
        self.permissions = permissions
        self.hooks = hooks
        self.extra = extra

    def names(self) -> list[str]:
        return sorted(self.files.agents.items)

    def listing(self) -> str:
        cap = self.settings.project_files.agent_types_chars
        lines = ["Subagent types (`agent_type`; omit it for a general subagent):"]
        used = len(lines[0])
        for name in self.names():
            description = self.files.agents.items[name].description
            line = f"- {name}: {description[:300]}"
            if used + len(line) > cap:
                lines.append("- ... (more types: an unknown agent_type lists every name)")
                break
            lines.append(line)
            used += len(line) + 1
        return "\n".join(lines)

    def profile(self, name: str) -> SubagentProfile | None:
        item = self.files.agents.items.get(name.strip())
        if item is None:
            return None
        model, _ = vocab.resolve_model(
            item.model, self.settings.project_files.model_aliases, self.parent_model()
        )
        return SubagentProfile(
            name=item.name,
            system=item.body or None,
            tools=None if item.meta.get("all_tools") else frozenset(item.tools),
            disallowed=frozenset(item.meta.get("disallowed") or ()),
            model=model,
            gate=self._gate(item),
            max_turns=item.meta.get("max_turns"),
            color=str(item.meta.get("color") or ""),
            isolation=str(item.meta.get("isolation") or ""),
        )

    def _gate(self, item: Definition) -> PolicyGate | None:
        session_mode = self.permissions.mode
        mode, ask, _ = vocab.resolve_mode(item.meta.get("permission_mode"), session_mode)
        if not self.files.allows(item, "mode") and vocab.MODE_ORDER[mode] > 1:
            mode = "default"  # untrusted: a wider mode does not take effect
        if mode == session_mode and ask:
            return None
        settings = self.permissions.settings.model_copy(update={"mode": mode})
        approver = self.permissions.approver if ask else HeadlessApprover()
        permissions = replace(
            self.permissions, settings=settings, approver=approver, session_allow=[], turn_allow=[]
        )
        return PolicyGate(permissions, self.hooks, self.extra)
