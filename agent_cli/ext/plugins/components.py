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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.ext.plugins.configs import merge_hooks, read_servers
from agent_cli.ext.plugins.manifest import MANIFEST, Manifest, manifest_from, read_manifest
from agent_cli.runtime.bundles import Bundle, BundleCommand, BundleScope

if TYPE_CHECKING:
    from agent_cli.ext.plugins.marketplace import Entry

ENTRY = "marketplace entry"
DEFAULT = ""  # a declaration standing for the default folder
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
            continue
        if key in REPLACING and key not in declared:
            declared[key] = [(DEFAULT, None)]  # appended to the default folder, not replacing it
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


def _markdown(plugin: Plugin, key: str, declared: list[tuple[str, Any]]) -> list[BundleCommand]:
    """Commands or agents: the default folder, or what is declared (which replaces it; a
    strict entry's list adds to whichever applies). A file named twice loads once."""
    found: dict[Path | str, BundleCommand] = {}  # by file, or by name for inline content
    for file, value in declared or [(DEFAULT, None)]:
        if file == DEFAULT:
            items = _folder(plugin, plugin.root / REPLACING[key], f"{key}/", key)
        elif isinstance(value, dict) and key == "commands":
            items = _command_map(plugin, file, value)
        else:
            items = _declared_files(plugin, file, key, value)
        for item in items:
            found.setdefault(item.path or item.name, item)
    default = plugin.root / REPLACING[key]
    inside = any(isinstance(p, Path) and p.is_relative_to(default.resolve()) for p in found)
    if declared and (DEFAULT, None) not in declared and default.is_dir() and not inside:
        problem = f"replaces the default {REPLACING[key]}/ folder, whose files are not loaded"
        plugin.warn(MANIFEST, key, problem)
    return list(found.values())


def _folder(plugin: Plugin, folder: Path, file: str, key: str) -> list[BundleCommand]:
    """`*.md` under `folder`; a sub-folder is a namespace (`sub/x.md` is `sub:x`)."""
    top = plugin.resolved(folder, file, key) if folder.is_dir() else None
    if top is None:
        return []
    files = plugin.walk(top, ".md", file, key)
    return [BundleCommand(":".join(p.relative_to(top).with_suffix("").parts), p) for p in files]


def _declared_files(plugin: Plugin, file: str, key: str, value: Any) -> list[BundleCommand]:
    items: list[BundleCommand] = []
    for raw in _paths(value, file, key, plugin):
        path = plugin.inside(raw, file, key)
        if path is not None and path.is_dir():
            items += _folder(plugin, path, file, key)
        elif path is not None and path.suffix.lower() != ".md":
            plugin.warn(file, key, f"{raw!r} is not a Markdown file; ignored")
        elif path is not None:
            items.append(BundleCommand(path.stem, path))
    return items


def _commands(plugin: Plugin, declared: list[tuple[str, Any]]) -> tuple[BundleCommand, ...]:
    found: dict[str, BundleCommand] = {}
    for command in _markdown(plugin, "commands", declared):
        if command.name in found:
            where = str(command.path.relative_to(plugin.root)) if command.path else "commands"
            plugin.warn(where, "commands", f"/{command.name} is defined twice; the first is kept")
        else:
            found[command.name] = command
    return tuple(found.values())


def _agents(plugin: Plugin, declared: list[tuple[str, Any]]) -> tuple[Path, ...]:
    return tuple(a.path for a in _markdown(plugin, "agents", declared) if a.path)


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
