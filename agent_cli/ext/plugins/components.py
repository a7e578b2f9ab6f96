"""A plugin folder, with its marketplace entry when it has one, resolved into a `Bundle`.

Components sit at their default places (`commands/`, `agents/`, `skills/`, `hooks/hooks.json`,
`.mcp.json`, `.lsp.json`) unless plugin.json (or an entry acting as it) says otherwise, in any
of the forms real plugins use: a path with or without `./`, an array of paths, a folder where a
file is expected, a map of commands. Only files are located here: project_files reads the
Markdown later. Every path stays inside the plugin's folder: one that leaves it (`..`, an
absolute path, a symlink out) is a warning and is never followed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.ext.plugins.configs import merge_hooks, read_servers
from agent_cli.ext.plugins.manifest import MANIFEST, Manifest, manifest_from, read_manifest
from agent_cli.runtime.bundles import Bundle, BundleCommand, BundleScope

if TYPE_CHECKING:
    from agent_cli.ext.plugins.marketplace import Entry

ENTRY = "marketplace entry"
MAX_FILES = 2_000  # per walked folder: a hostile tree cannot stall a listing
REPLACING = {"commands": "commands", "agents": "agents"}  # keys that replace a default folder


@dataclass
class Plugin:
    """One load in progress: the folder, the name warnings carry, the lines so far."""

    root: Path  # resolved
    label: str
    warnings: list[str] = field(default_factory=list)

    def warn(self, file: str, key: str, problem: str) -> None:
        self.warnings.append(f"plugin {self.label}: {file}: {key}: {problem}")

    def inside(self, raw: Any, file: str, key: str) -> Path | None:
        """`raw` (a component path as written) resolved inside the plugin, or None, warned."""
        if not isinstance(raw, str) or not raw.strip():
            self.warn(file, key, f"{raw!r} is not a path; ignored")
            return None
        text = raw.strip()
        if text.startswith(("/", "~", "\\")) or "://" in text or ".." in Path(text).parts:
            self.warn(file, key, f"{text!r} is outside the plugin folder; not followed")
            return None
        candidate = self.root / text
        if not os.path.lexists(candidate):
            self.warn(file, key, f"{text!r} does not exist; ignored")
            return None
        return self.resolved(candidate, file, key)

    def resolved(self, path: Path, file: str, key: str) -> Path | None:
        target = path.resolve()
        if not target.is_relative_to(self.root):
            where = path.relative_to(self.root) if path.is_relative_to(self.root) else path
            self.warn(file, key, f"{where} leads out of the plugin folder ({target}); not followed")
            return None
        return target

    def walk(self, folder: Path, suffix: str, file: str, key: str) -> list[Path]:
        """Files ending in `suffix` under `folder`, sorted; symlinked folders are not entered
        and a symlinked file that leads out is refused."""
        found: list[Path] = []
        for top, dirs, names in os.walk(folder):
            dirs.sort()
            for name in sorted(names):
                if not name.lower().endswith(suffix) or len(found) >= MAX_FILES:
                    continue
                path = self.resolved(Path(top) / name, file, key)
                if path is not None and path.is_file():
                    found.append(path)
        return found


def load_bundle(
    root: Path,
    *,
    name: str | None = None,
    entry: Entry | None = None,
    source: str,
    scope: BundleScope,
    data: Path,
) -> tuple[Bundle, list[str]]:
    """The plugin at `root` as a Bundle, and one line per problem (`plugin <name>: <file>:
    <key>: <problem>`); whatever is readable loads. The namespace is `name` when given, else
    plugin.json's, else the entry's, else the folder's."""
    folder = Path(root).resolve()
    label = name or (entry.name if entry else "") or folder.name
    if not folder.is_dir():
        empty = Bundle(name=label, root=folder, data=data, source=source, scope=scope)
        return empty, [f"plugin {label}: {folder}: not a folder; nothing loaded"]
    manifest, warnings = read_manifest(folder, label)
    label = name or manifest.name or (entry.name if entry else "") or folder.name
    plugin = Plugin(folder, label, warnings)
    declared = _declarations(plugin, manifest, entry)
    version, description = _about(plugin, manifest, entry)
    bundle = Bundle(
        name=label,
        root=folder,
        data=data,
        source=source,
        scope=scope,
        version=version,
        description=description,
        commands=_commands(plugin, declared.get("commands", [])),
        agents=_agents(plugin, declared.get("agents", [])),
        skills=_skills(plugin, declared.get("skills", [])),
        hooks=merge_hooks(plugin, declared.get("hooks", [])),
        mcp_servers=read_servers(plugin, ".mcp.json", "mcpServers", declared.get("mcpServers", [])),
        lsp_servers=read_servers(plugin, ".lsp.json", "lspServers", declared.get("lspServers", [])),
    )
    return bundle, plugin.warnings


Declared = dict[str, list[tuple[str, Any]]]  # key -> [(file it is written in, value)]


def _declarations(plugin: Plugin, manifest: Manifest, entry: Entry | None) -> Declared:
    """Which file declares each component: plugin.json, and an entry appending to it (`strict`,
    the default) or standing for it (no plugin.json)."""
    declared: Declared = {}
    for key, value in manifest.components.items():
        declared.setdefault(key, []).append((MANIFEST, value))
    if entry is None or not entry.components:
        return declared
    if not manifest.present:
        as_manifest, lines = manifest_from(entry.components, f"plugin {plugin.label}: {ENTRY}")
        plugin.warnings += lines
        for key, value in as_manifest.components.items():
            declared.setdefault(key, []).append((ENTRY, value))
        return declared
    if not entry.strict:
        keys = ", ".join(sorted(entry.components))
        plugin.warn(
            ENTRY,
            keys,
            "strict: false, yet the plugin has its own plugin.json; "
            "the entry's components are ignored",
        )
        return declared
    for key, value in entry.components.items():
        if key in ("mcpServers", "lspServers"):
            plugin.warn(ENTRY, key, "ignored: the plugin has its own plugin.json (strict)")
        else:
            declared.setdefault(key, []).append((ENTRY, value))
    return declared


def _about(plugin: Plugin, manifest: Manifest, entry: Entry | None) -> tuple[str, str]:
    """(version, description): plugin.json's first, the entry's otherwise; a disagreement on
    the version is said (the installed copy is what plugin.json describes)."""
    if entry is None:
        return manifest.version, manifest.description
    if manifest.version and entry.version and manifest.version != entry.version:
        plugin.warn(
            MANIFEST,
            "version",
            f"{manifest.version!r} but the marketplace entry says "
            f"{entry.version!r}; plugin.json's is used",
        )
    return manifest.version or entry.version, manifest.description or entry.description


def _paths(value: Any, file: str, key: str, plugin: Plugin) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [value]
    plugin.warn(file, key, f"a {type(value).__name__}, not a path or a list of paths; ignored")
    return []


def _default_ignored(plugin: Plugin, key: str, places: Iterable[Path]) -> None:
    default = plugin.root / REPLACING[key]
    if default.is_dir() and not any(p.is_relative_to(default.resolve()) for p in places):
        plugin.warn(
            MANIFEST,
            key,
            f"replaces the default {REPLACING[key]}/ folder, whose files are not loaded",
        )


def _commands(plugin: Plugin, declared: list[tuple[str, Any]]) -> tuple[BundleCommand, ...]:
    found: dict[str, BundleCommand] = {}
    seen: set[Path] = set()

    def add(command: BundleCommand, file: str) -> None:
        if command.path is not None and command.path in seen:
            return  # the same file named twice (a folder and a file in it): loaded once
        if command.name in found:
            plugin.warn(file, "commands", f"/{command.name} is declared twice; the first is kept")
            return
        found[command.name] = command
        if command.path is not None:
            seen.add(command.path)

    places: list[Path] = []
    for file, value in declared or [("", None)]:
        items = _command_items(plugin, file, value) if file else _markdown_in(plugin, "commands")
        for command in items:
            add(command, file or "commands")
            places += [command.path] if command.path else []
    if declared:
        _default_ignored(plugin, "commands", places)
    return tuple(found.values())


def _markdown_in(plugin: Plugin, folder: str) -> list[BundleCommand]:
    if not (plugin.root / folder).is_dir():
        return []
    top = plugin.resolved(plugin.root / folder, f"{folder}/", folder)
    if top is None:
        return []
    files = plugin.walk(top, ".md", f"{folder}/", folder)
    return [BundleCommand(":".join(p.relative_to(top).with_suffix("").parts), p) for p in files]


def _command_items(plugin: Plugin, file: str, value: Any) -> list[BundleCommand]:
    if isinstance(value, dict):
        return _command_map(plugin, file, value)
    items: list[BundleCommand] = []
    for raw in _paths(value, file, "commands", plugin):
        path = plugin.inside(raw, file, "commands")
        if path is None:
            continue
        if path.is_dir():
            files = plugin.walk(path, ".md", file, "commands")
            items += [
                BundleCommand(":".join(p.relative_to(path).with_suffix("").parts), p) for p in files
            ]
        elif path.suffix.lower() != ".md":
            plugin.warn(file, "commands", f"{raw!r} is not a Markdown file; ignored")
        else:
            items.append(BundleCommand(path.stem, path))
    return items


def _command_map(plugin: Plugin, file: str, value: dict[str, Any]) -> list[BundleCommand]:
    """`{"name": {"source": "./x.md" | "content": "...", "description": "..."}}`."""
    items: list[BundleCommand] = []
    for name, spec in value.items():
        key = f"commands.{name}"
        if isinstance(spec, str):
            spec = {"source": spec}
        if not isinstance(spec, dict) or ("source" in spec) == ("content" in spec):
            plugin.warn(file, key, "needs exactly one of `source` or `content`; ignored")
            continue
        about = spec.get("description")
        description = about.strip() if isinstance(about, str) else ""
        if "content" in spec:
            if isinstance(spec["content"], str):
                items.append(BundleCommand(name, None, spec["content"], description))
            else:
                plugin.warn(file, key, "`content` is not text; ignored")
            continue
        path = plugin.inside(spec["source"], file, f"{key}.source")
        if path is not None and path.is_file():
            items.append(BundleCommand(name, path, None, description))
        elif path is not None:
            plugin.warn(file, f"{key}.source", "is not a file; ignored")
    return items


def _agents(plugin: Plugin, declared: list[tuple[str, Any]]) -> tuple[Path, ...]:
    if not declared:
        return tuple(c.path for c in _markdown_in(plugin, "agents") if c.path)
    found: list[Path] = []
    for file, value in declared:
        for raw in _paths(value, file, "agents", plugin):
            path = plugin.inside(raw, file, "agents")
            if path is not None and path.is_dir():
                found += plugin.walk(path, ".md", file, "agents")
            elif path is not None and path.suffix.lower() != ".md":
                plugin.warn(file, "agents", f"{raw!r} is not a Markdown file; ignored")
            elif path is not None:
                found.append(path)
    _default_ignored(plugin, "agents", found)
    return tuple(dict.fromkeys(found))


def _skills(plugin: Plugin, declared: list[tuple[str, Any]]) -> tuple[Path, ...]:
    """`skills/<name>/SKILL.md` folders, then the declared ones (they add, not replace): a
    skill folder, a folder of skill folders, or a SKILL.md itself."""
    default = plugin.root / "skills"
    top = plugin.resolved(default, "skills/", "skills") if default.is_dir() else None
    found = _skill_folders(plugin, top, "skills/", "skills") if top else []
    for file, value in declared:
        for raw in _paths(value, file, "skills", plugin):
            path = plugin.inside(raw, file, "skills")
            if path is not None and path.is_file() and path.name.upper() == "SKILL.MD":
                path = path.parent
            if path is None:
                continue
            more = _skill_folders(plugin, path, file, "skills")
            if not more:
                plugin.warn(file, "skills", f"{raw!r} holds no SKILL.md; ignored")
            found += more
    return tuple(dict.fromkeys(found))


def _skill_folders(plugin: Plugin, folder: Path, file: str, key: str) -> list[Path]:
    if not folder.is_dir():
        return []
    if _skill_file(plugin, folder, file, key):
        return [folder]
    found = []
    for child in sorted(folder.iterdir()):
        path = plugin.resolved(child, file, key) if child.is_dir() else None
        if path is not None and _skill_file(plugin, path, file, key):
            found.append(path)
    return found


def _skill_file(plugin: Plugin, folder: Path, file: str, key: str) -> bool:
    """Whether `folder` holds a SKILL.md (any case) that stays inside the plugin."""
    for path in sorted(folder.iterdir()):
        if path.name.upper() == "SKILL.MD" and path.is_file():
            return plugin.resolved(path, file, key) is not None
    return False
