"""A marketplace's `.claude-plugin/marketplace.json`: its name, owner and entries, each with a
typed source (a folder inside the marketplace, a GitHub repository, a git URL, a sub-folder of
one). Nothing is fetched here: remote sources are listed for the store to clone.

A file that is not JSON, or has no name, is one `problem`; a bad entry is one warning and the
others load. A name Claude Code reserves for Anthropic is refused unless the marketplace comes
from an `anthropics/` GitHub repository (the list: code.claude.com/docs plugins/marketplace-
reference, "Reserved names", with the `inline`/`builtin`/`npm`/`github`/`claudeai-*` names
SCHEMA.md also gives).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_cli.ext.plugins.manifest import COMPONENT_KEYS, read_json

MARKETPLACE = ".claude-plugin/marketplace.json"
RESERVED = frozenset(
    {"claude-code-marketplace", "claude-code-plugins", "claude-plugins-official"}
    | {"anthropic-marketplace", "anthropic-plugins", "agent-skills", "anthropic-agent-skills"}
    | {"life-sciences", "knowledge-work-plugins", "claude-for-legal"}
    | {"claude-for-financial-services", "financial-services-plugins", "first-party-plugins"}
    | {"claude-tag-plugins", "claude-community", "claude-plugins-community", "healthcare"}
    | {"anthropic-plugin-directory", "claude-plugin-directory"}
    | {"inline", "builtin", "npm", "github"}
)
_ANTHROPIC = re.compile(
    r"^(?:(?:https?://|ssh://git@|git@)github\.com[/:])?anthropics/[\w.-]+?(?:\.git)?/?$", re.I
)
_REPO = re.compile(r"^[\w.-]+/[\w.-]+$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class RelativeSource:
    """A folder inside the marketplace (`./plugins/x`, `./`, a bare name under pluginRoot)."""

    path: Path  # absolute, inside the marketplace root
    written: str


@dataclass(frozen=True)
class GitHubSource:
    repo: str  # owner/repo
    ref: str | None = None
    sha: str | None = None


@dataclass(frozen=True)
class UrlSource:
    """A git repository at a URL (https, http, file, git@)."""

    url: str
    ref: str | None = None
    sha: str | None = None
    path: str | None = None  # not a documented field of `url`; seen in real files


@dataclass(frozen=True)
class GitSubdirSource:
    url: str  # a URL or owner/repo
    path: str
    ref: str | None = None
    sha: str | None = None


PluginSource = RelativeSource | GitHubSource | UrlSource | GitSubdirSource


@dataclass(frozen=True)
class Entry:
    """One plugin the marketplace lists. `components` (skills/commands/agents/hooks/
    mcpServers/lspServers as written) append to the plugin's plugin.json when `strict`, and
    stand for it when the plugin has none."""

    name: str
    source: PluginSource | None  # None: not a source we can use (warned)
    version: str = ""
    description: str = ""
    strict: bool = True
    components: Mapping[str, Any] = field(default_factory=dict)
    fields: Mapping[str, Any] = field(default_factory=dict)  # the entry as written


@dataclass
class Catalog:
    name: str
    root: Path  # the folder holding .claude-plugin/
    owner: str = ""
    description: str = ""
    entries: tuple[Entry, ...] = ()
    problem: str | None = None  # set: the marketplace cannot be used at all
    warnings: list[str] = field(default_factory=list)

    def entry(self, name: str) -> Entry | None:
        return next((e for e in self.entries if e.name == name), None)


def is_anthropic(origin: str | None) -> bool:
    """Whether a marketplace added from `origin` comes from github.com/anthropics/."""
    return bool(origin) and bool(_ANTHROPIC.match(str(origin).strip()))


def name_problem(name: Any, origin: str | None) -> str | None:
    if not isinstance(name, str) or not name.strip():
        return "has no name"
    if re.search(r"[\s/\\]", name) or ".." in name or name == ".":
        return f"name {name!r} holds a space, a slash or '..'"
    reserved = name.lower() in RESERVED or name.lower().startswith("claudeai-")
    if reserved and not is_anthropic(origin):
        return f"name {name!r} is reserved for Anthropic's marketplaces; refused"
    return None


def read_marketplace(folder: Path, *, origin: str | None = None) -> Catalog:
    """The catalog of the marketplace rooted at `folder`. `origin` is where it was added from
    (`owner/repo`, a git URL; None for a local folder), which only reserved names depend on."""
    root = Path(folder).resolve()
    catalog = Catalog(name="", root=root)
    data, problem = read_json(root / MARKETPLACE)
    if problem is None and not isinstance(data, dict):
        problem = "not a JSON object"
    if problem is None:
        problem = name_problem(data.get("name"), origin)
    if problem is not None:
        catalog.name = _text(data.get("name")) if isinstance(data, dict) else ""
        catalog.problem = f"marketplace {catalog.name or root.name}: {MARKETPLACE}: {problem}"
        return catalog
    catalog.name = data["name"].strip()
    catalog.owner = _owner(data.get("owner"))
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    catalog.description = _text(data.get("description")) or _text(metadata.get("description"))
    plugins = data.get("plugins")
    if not isinstance(plugins, list):
        catalog.warnings.append(f"marketplace {catalog.name}: {MARKETPLACE}: plugins: not a list")
        return catalog
    catalog.entries = _entries(catalog, plugins, _plugin_root(catalog, metadata))
    return catalog


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _owner(value: Any) -> str:
    if isinstance(value, dict):
        return _text(value.get("name"))
    return _text(value)


def _plugin_root(catalog: Catalog, metadata: dict[str, Any]) -> Path | None:
    value = metadata.get("pluginRoot")
    if value is None:
        return None
    path = _inside(catalog.root, value)
    if path is None:
        catalog.warnings.append(
            f"marketplace {catalog.name}: {MARKETPLACE}: "
            f"metadata.pluginRoot: {value!r} is not a folder inside it; ignored"
        )
    return path


def _inside(root: Path, raw: Any) -> Path | None:
    """`raw` as a path inside `root`, resolved (symlinks too), or None."""
    if not isinstance(raw, str) or not raw.strip() or "\\" in raw:
        return None
    text = raw.strip()
    if text.startswith(("/", "~")) or ".." in Path(text).parts:
        return None
    target = (root / text).resolve()
    return target if target.is_relative_to(root) else None


def _entries(catalog: Catalog, plugins: list[Any], plugin_root: Path | None) -> tuple[Entry, ...]:
    entries: dict[str, Entry] = {}
    for i, raw in enumerate(plugins):
        where = f"marketplace {catalog.name}: {MARKETPLACE}: plugins[{i}]"
        if not isinstance(raw, dict) or not _text(raw.get("name")):
            catalog.warnings.append(f"{where}: not an entry with a name; ignored")
            continue
        name = raw["name"].strip()
        where = f"marketplace {catalog.name}: {MARKETPLACE}: {name}"
        if name in entries:
            catalog.warnings.append(f"{where}: listed twice; the first is kept")
            continue
        source, problem = _source(catalog.root, raw.get("source"), plugin_root)
        if problem:
            catalog.warnings.append(f"{where}: source: {problem}")
        strict = raw.get("strict", True)
        if not isinstance(strict, bool):
            catalog.warnings.append(f"{where}: strict: {strict!r} is not true/false; true is used")
            strict = True
        version = raw.get("version")
        entries[name] = Entry(
            name=name,
            source=source,
            version=str(version).strip() if isinstance(version, str | int | float) else "",
            description=_text(raw.get("description")),
            strict=strict,
            components={k: raw[k] for k in COMPONENT_KEYS if raw.get(k) is not None},
            fields=raw,
        )
    return tuple(entries.values())


def _source(
    root: Path, raw: Any, plugin_root: Path | None
) -> tuple[PluginSource | None, str | None]:
    """(the source, None) or (None, why it cannot be used)."""
    if isinstance(raw, str):
        return _relative(root, raw, plugin_root)
    if not isinstance(raw, dict):
        return None, f"{raw!r} is neither a path nor a source object"
    return _remote(raw)


def _remote(raw: dict[str, Any]) -> tuple[PluginSource | None, str | None]:
    """A `{"source": "github" | "url" | "git-subdir", ...}` object."""
    kind = raw.get("source")
    ref, sha = _ref(raw.get("ref")), raw.get("sha")
    sha = sha.strip().lower() if isinstance(sha, str) and _SHA.match(sha.strip().lower()) else None
    if raw.get("sha") is not None and sha is None:
        return None, f"sha {raw.get('sha')!r} is not a full 40-character commit"
    if kind == "github":
        repo = _text(raw.get("repo"))
        if not _REPO.match(repo):
            return None, f"github repo {raw.get('repo')!r} is not owner/repo"
        return GitHubSource(repo, ref, sha), None
    if kind == "url":
        url = _text(raw.get("url"))
        if not url:
            return None, "a url source without a url"
        return UrlSource(url, ref, sha, _text(raw.get("path")) or None), None
    if kind == "git-subdir":
        url, path = _text(raw.get("url")), _text(raw.get("path"))
        if not url or not path or ".." in Path(path).parts:
            return None, "a git-subdir source needs a url and a path inside it"
        return GitSubdirSource(url, path, ref, sha), None
    if kind in ("npm", "archive", "command"):
        return None, f"{kind!r} sources are not supported"
    return None, f"unknown source kind {kind!r}"


def _ref(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _relative(
    root: Path, raw: str, plugin_root: Path | None
) -> tuple[PluginSource | None, str | None]:
    text = raw.strip()
    if text.startswith("github:"):
        return None, f'{text!r} is not a valid source (write {{"source": "github", "repo": ...}})'
    if ":" in text.split("/", 1)[0]:
        return None, f"{text!r} is not a valid source"
    base, written = root, text
    if text not in (".", "./") and not text.startswith("./"):
        if plugin_root is None:
            return (
                None,
                f"{text!r}: a relative source starts with './' (or set metadata.pluginRoot)",
            )
        base = plugin_root
    path = _inside(root, str((base / text).relative_to(root)) if base != root else text)
    if path is None:
        return None, f"{text!r} is outside the marketplace; refused"
    return RelativeSource(path, written), None
