"""A subagent type's say over one run: its tools, model, system prompt, gate, turn limit.

`task` without `agent_type` runs the general subagent (no profile); with one, the profile a
project file (or the built-in `explore`) describes.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Protocol

from agent_cli.core.tool_contract import Gate
from agent_cli.tools.registry import ToolRegistry


@dataclass(frozen=True)
class SubagentProfile:
    name: str
    system: str | None = None  # the type's body; None: the general subagent prompt
    tools: frozenset[str] | None = None  # an allow-list; None: every tool the parent offers
    disallowed: frozenset[str] = field(default_factory=frozenset)
    model: str | None = None  # None: the parent's
    gate: Gate | None = None  # another permission mode; None: the parent's gate
    max_turns: int | None = None
    color: str = ""
    isolation: str = ""  # "worktree": every run of this type works in a worktree of its own

    def narrow(self, registry: ToolRegistry, keep: tuple[str, ...]) -> ToolRegistry:
        """The allow-list minus the disallowed tools, MCP tools included as they come and go;
        `keep` (submit_note) always stays."""
        return registry.narrowed(
            lambda n: n in keep or (self._allows(n) and not _listed(n, self.disallowed))
        )

    def _allows(self, name: str) -> bool:
        return self.tools is None or _listed(name, self.tools)


def _listed(name: str, names: frozenset[str]) -> bool:
    """By name, or by a pattern such as `mcp__github__*`."""
    return name in names or any("*" in n and fnmatch.fnmatchcase(name, n) for n in names)


class SubagentTypes(Protocol):
    """What `task` knows of subagent types: their listing, and a profile by name."""

    def names(self) -> list[str]: ...

    def listing(self) -> str: ...

    def profile(self, name: str) -> SubagentProfile | None: ...
