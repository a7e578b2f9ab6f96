"""Every project file of a workspace, loaded once, and what trust lets take effect.

From a workspace not yet trusted, nothing that widens what runs unasked takes effect: its hooks,
allow rules, commands' and skills' `allowed-tools`, `!`cmd`` lines (asked instead), a
`permissionMode` wider than `default`. Narrowing things (deny and ask rules,
`disallowedTools`) always apply. The user's own files (`~/.claude/`, ...) need no trust.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.ext.project_files.claude.hooks import ClaudeHook
from agent_cli.ext.project_files.claude.settings import ClaudeSettings, load_claude_settings
from agent_cli.ext.project_files.definitions import Definition, LoadedDefinitions, load_kind
from agent_cli.ext.project_files.kinds import AGENTS, COMMANDS, EXPLORE, SKILLS
from agent_cli.ext.project_files.sources import all_roots
from agent_cli.policy.trust import TrustItem, TrustStore, fingerprint

if TYPE_CHECKING:
    from agent_cli.runtime.bundles import Bundle

SHELL_LINE = re.compile(r"!`([^`\n]+)`")
WIDE_MODES = ("acceptedits", "bypasspermissions", "accept-edits", "bypass")


@dataclass
class ProjectFiles:
    workspace: Path
    commands: LoadedDefinitions = field(default_factory=LoadedDefinitions)
    agents: LoadedDefinitions = field(default_factory=LoadedDefinitions)
    skills: LoadedDefinitions = field(default_factory=LoadedDefinitions)
    claude: ClaudeSettings = field(default_factory=ClaudeSettings)
    covered: set[str] = field(default_factory=set)  # trust item keys the user agreed to

    def allows(self, item: Definition, key: str) -> bool:
        """May this widening part of `item` take effect?"""
        return item.scope != "workspace" or f"{item.kind}:{item.name}:{key}" in self.covered

    def hook_allowed(self, hook: ClaudeHook, scope: str) -> bool:
        return scope != "workspace" or hook_key(hook) in self.covered

    def active_hooks(self) -> list[ClaudeHook]:
        return [h for h, scope in self.claude.hooks if self.hook_allowed(h, scope)]

    def rule_patterns(self, kind: str) -> list[str]:
        return [
            p
            for r in self.claude.rules
            if r.kind == kind
            for p in r.patterns
            if kind != "allow" or r.scope != "workspace" or rule_key(r.original) in self.covered
        ]

    @property
    def warnings(self) -> list[str]:
        return [
            *self.commands.warnings,
            *self.agents.warnings,
            *self.skills.warnings,
            *self.claude.warnings,
        ]

    def user_commands(self) -> dict[str, Definition]:
        """What `/name` may invoke: every command, then user-invocable skills not shadowed."""
        found = dict(self.commands.items)
        for name, skill in self.skills.items.items():
            if skill.meta.get("user_invocable", True):
                found.setdefault(name, skill)
        return found

    def resolve_command(self, name: str) -> Definition | None:
        """`/frontend:component`, or plain `/component` while only one namespace has it."""
        commands = self.user_commands()
        if name in commands:
            return commands[name]
        tails = [c for n, c in commands.items() if n.rsplit(":", 1)[-1] == name]
        return tails[0] if len(tails) == 1 else None


def load_project_files(
    workspace: Path, store: TrustStore | None = None, bundles: Sequence[Bundle] = ()
) -> ProjectFiles:
    """The workspace's and the user's files, then what the enabled plugins (`bundles`) bring."""
    workspace = workspace.expanduser().resolve()
    roots = all_roots(workspace)
    files = ProjectFiles(
        workspace=workspace,
        commands=load_kind(COMMANDS, roots),
        agents=load_kind(AGENTS, roots),
        skills=load_kind(SKILLS, roots),
        claude=load_claude_settings(roots),
    )
    if bundles:
        from agent_cli.ext.project_files.bundled import add_bundles

        add_bundles(files, bundles)
    files.agents.add(EXPLORE.model_copy(deep=True))  # farthest of all: a file may replace it
    store = store or TrustStore()
    files.covered = {
        i.key for i in trust_items(files) if store.covers(workspace, i.key, i.fingerprint)
    }
    return files


def hook_key(hook: ClaudeHook) -> str:
    return f"claude-hook:{hook.event}:{fingerprint(hook.source, hook.matcher, hook.command)}"


def rule_key(original: str) -> str:
    return f"claude-allow:{original}"


def shell_lines(body: str) -> list[str]:
    return [m.group(1).strip() for m in SHELL_LINE.finditer(body)]


def trust_items(files: ProjectFiles) -> list[TrustItem]:
    """What this workspace's project files would widen, as `agent trust` shows it."""
    items: list[TrustItem] = []
    for hook, scope in files.claude.hooks:
        if scope == "workspace":
            items.append(
                TrustItem(
                    key=hook_key(hook),
                    source=hook.source,
                    description=f"hook {hook.event}: {hook.command}",
                )
            )
    for rule in files.claude.rules:
        if rule.kind == "allow" and rule.scope == "workspace":
            items.append(
                TrustItem(
                    key=rule_key(rule.original),
                    source=rule.source,
                    description=f"allow {rule.original}",
                )
            )
    for item in _workspace_items(files):
        items += _definition_items(item)
    return items


def _workspace_items(files: ProjectFiles) -> list[Definition]:
    loaded = [
        *files.commands.items.values(),
        *files.skills.items.values(),
        *files.agents.items.values(),
    ]
    return [d for d in loaded if d.scope == "workspace"]


def _definition_items(item: Definition) -> list[TrustItem]:
    prefix, label = f"{item.kind}:{item.name}", f"{item.kind} {item.name}"
    items = []
    if item.patterns and item.kind != "agent":
        items.append(
            TrustItem(
                key=f"{prefix}:tools",
                source=item.path,
                description=f"{label} allowed-tools: {', '.join(item.patterns)}",
            )
        )
    lines = shell_lines(item.body) if item.kind != "agent" else []
    if lines:
        shown = "; ".join(f"`{line}`" for line in lines)
        items.append(
            TrustItem(
                key=f"{prefix}:shell",
                source=item.path,
                description=f"{label} runs before sending: {shown}",
            )
        )
    mode = str(item.meta.get("permission_mode") or "").lower()
    if item.kind == "agent" and mode in WIDE_MODES:
        items.append(
            TrustItem(
                key=f"{prefix}:mode", source=item.path, description=f"{label} permissionMode {mode}"
            )
        )
    return items


def project_trust_items(workspace: Path) -> list[TrustItem]:
    """The provider `agent trust` passes to `trust_items.widening_items`."""
    return trust_items(load_project_files(workspace, TrustStore()))
