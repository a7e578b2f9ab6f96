"""Plugin bundles as the features that use them see them: the port `"plugin_bundles"`.

A plugin (a Claude Code plugin folder) bundles slash commands, subagent types, skills, hooks,
MCP servers and language servers. The plugins extension installs and enables them and answers
this port with the enabled ones, resolved; the project files, MCP and language-server
extensions ask it and add what each bundle brings beside the workspace's own. Nothing here
reads a file: this is the shape they agree on."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

PORT = "plugin_bundles"

BundleScope = Literal["user", "project", "session"]


@dataclass(frozen=True)
class BundleCommand:
    """A slash command a bundle brings: `/plugin:name` (bare `/name` when no other has it)."""

    name: str  # the file's stem, or the key of a manifest's commands map
    path: Path | None  # its Markdown file; None when the manifest gives its `content`
    content: str | None = None
    description: str = ""


@dataclass(frozen=True)
class Bundle:
    """One enabled plugin, resolved: every path absolute and inside `root`."""

    name: str  # the namespace: `/name:command`, `name:agent-type`, `name:skill`
    root: Path  # ${CLAUDE_PLUGIN_ROOT}
    data: Path  # ${CLAUDE_PLUGIN_DATA}: the plugin's own writable folder, kept across updates
    source: str  # "name@marketplace", or the local folder it was installed from
    scope: BundleScope
    version: str = ""
    description: str = ""
    commands: tuple[BundleCommand, ...] = ()
    agents: tuple[Path, ...] = ()  # Markdown files
    skills: tuple[Path, ...] = ()  # folders, each holding a SKILL.md
    hooks: Mapping[str, Any] = field(default_factory=dict)
    """Claude Code's hooks object, `{event: [matcher group, ...]}`, every file merged."""
    mcp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    lsp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def environment(self) -> dict[str, str]:
        """What a process the bundle starts (hook, server, skill script) is given."""
        return {"CLAUDE_PLUGIN_ROOT": str(self.root), "CLAUDE_PLUGIN_DATA": str(self.data)}

    def expand(self, text: str) -> str:
        """`text` with `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` (also in their
        `${NAME:-fallback}` forms) replaced; every other variable left for the shell."""
        values = self.environment()
        return _VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), text)


_VARIABLE = re.compile(r"\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)(?::-(?:[^{}]|\{[^{}]*\})*)?\}")


class BundleSource(Protocol):
    """What the port answers: the bundles enabled for this workspace and run, and one line per
    plugin that is enabled but could not be loaded (or only in part)."""

    def bundles(self) -> Sequence[Bundle]: ...

    def warnings(self) -> Sequence[str]: ...


class NoBundles:
    """The answer when the plugins extension is not there."""

    def bundles(self) -> Sequence[Bundle]:
        return ()

    def warnings(self) -> Sequence[str]:
        return ()
