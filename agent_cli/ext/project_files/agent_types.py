"""Subagent types for `task`'s `agent_type`: each project file (or the built-in `explore`)
becomes a profile: its tools, model alias resolved, body as system prompt, permission mode
mapped and never wider than the session's, turn limit and colour."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agent_cli.core.settings.models import aliases as model_aliases
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.project_files import vocabulary as vocab
from agent_cli.ext.project_files.catalog import ProjectFiles
from agent_cli.ext.project_files.definitions import Definition
from agent_cli.policy.gate import PolicyGate, ToolHooks
from agent_cli.policy.hooks import Hooks
from agent_cli.policy.permissions import Permissions
from agent_cli.subagent import explore
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
        items = self.files.agents.items
        types = [(name, items[name].description) for name in self.names()]
        return explore.listing(types, self.settings.project_files.agent_types_chars)

    def profile(self, name: str) -> SubagentProfile | None:
        item = self.files.agents.items.get(name.strip())
        if item is None:
            return None
        model, _ = vocab.resolve_model(
            item.model, model_aliases(self.settings), self.parent_model()
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
        mode, ask, _ = vocab.resolve_mode(item.meta.get("permission_mode"), self.permissions.mode)
        if not self.files.allows(item, "mode") and vocab.MODE_ORDER[mode] > 1:
            mode = "default"  # untrusted: a wider mode does not take effect
        return explore.narrowed_gate(self.permissions, mode, ask, self.hooks, self.extra)
