"""A plugin's `.claude-plugin/plugin.json`, read as real plugins write it.

The manifest is optional: without one the name comes from the marketplace entry or the folder.
Every problem is one line naming the file and the key; what can still be read is read. The JSON
files of a plugin (manifest, hooks, `.mcp.json`, `.lsp.json`) and of a marketplace are all read
by `read_json` here, so a broken one always reads the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST = ".claude-plugin/plugin.json"
MAX_JSON_BYTES = 2_000_000

COMPONENT_KEYS = ("commands", "agents", "skills", "hooks", "mcpServers", "lspServers")
# documented plugin.json fields we do not load (yet): kept quiet, unlike an unknown key
NOT_LOADED = frozenset(
    {"outputStyles", "workflows", "userConfig", "channels", "dependencies", "settings"}
    | {"experimental", "themes", "monitors"}
)
DISPLAY_KEYS = frozenset(
    {"$schema", "name", "displayName", "version", "description", "author", "homepage"}
    | {"repository", "license", "keywords", "metadata", "defaultEnabled"}
)
KNOWN_KEYS = DISPLAY_KEYS | NOT_LOADED | frozenset(COMPONENT_KEYS)

_BAD_NAME = re.compile(r"[\s@:/\\\x00-\x1f\x7f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass
class Manifest:
    """What a plugin declares: its own plugin.json, or a marketplace entry acting as one."""

    name: str | None = None
    version: str = ""
    description: str = ""
    components: dict[str, Any] = field(default_factory=dict)  # COMPONENT_KEYS as written
    present: bool = False  # a plugin.json was found and parsed


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a plugin's namespace, or None."""
    if not name.strip():
        return "is empty"
    if _BAD_NAME.search(name):
        return "holds a space, '@', ':', a path separator or a control character"
    if name in (".", ".."):
        return "is not a name"
    return None


def read_json(path: Path) -> tuple[Any, str | None]:
    """(value, None), or (None, the problem in a few words) for a file that cannot be JSON."""
    try:
        data = path.read_bytes()[: MAX_JSON_BYTES + 1]
    except OSError as e:
        return None, f"cannot be read ({e.strerror or e})"
    if len(data) > MAX_JSON_BYTES:
        return None, f"over {MAX_JSON_BYTES:,} bytes; not read"
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    try:
        return json.loads(text), None
    except json.JSONDecodeError as e:
        stripped = text.strip()
        if stripped and "\n" not in stripped and not stripped.startswith(("{", "[")):
            hint = f"{stripped[:80]!r}: a symlink committed as a file?"
            return None, f"holds one line of text, not JSON ({hint})"
        return None, f"not valid JSON (line {e.lineno} column {e.colno}: {e.msg})"


def read_manifest(root: Path, label: str) -> tuple[Manifest, list[str]]:
    """The plugin.json under `root` (an empty Manifest when there is none); `label` names the
    plugin in warnings until its name is known."""
    path = root / MANIFEST
    if not path.is_file():
        return Manifest(), []
    data, problem = read_json(path)
    if problem is not None:
        return Manifest(), [f"plugin {label}: {MANIFEST}: {problem}; its defaults are loaded"]
    if not isinstance(data, dict):
        return Manifest(), [f"plugin {label}: {MANIFEST}: not a JSON object; ignored"]
    found, warnings = manifest_from(data, f"plugin {label}: {MANIFEST}")
    for key in sorted(k for k in data if k not in KNOWN_KEYS):
        warnings.append(f"plugin {label}: {MANIFEST}: {key}: not a plugin.json field; ignored")
    found.present = True
    return found, warnings


def manifest_from(data: Mapping[str, Any], where: str) -> tuple[Manifest, list[str]]:
    """The fields of a plugin.json (or an entry acting as one); `where` starts each warning."""
    warnings: list[str] = []
    found = Manifest()
    name = data.get("name")
    if name is not None:
        problem = "is not a string" if not isinstance(name, str) else name_problem(name)
        if problem:
            warnings.append(f"{where}: name: {name!r} {problem}; not used")
        else:
            found.name = name.strip()
    for key in ("version", "description"):
        value = data.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            setattr(found, key, str(value).strip())
        elif value is not None:
            warnings.append(f"{where}: {key}: not a string; ignored")
    found.components = {k: data[k] for k in COMPONENT_KEYS if k in data and data[k] is not None}
    return found, warnings
