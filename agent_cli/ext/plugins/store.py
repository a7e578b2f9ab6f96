"""The plugin store: what the user added and installed, kept under the user's config folder
(`<user config>/plugins/`), never in a workspace.

    plugins/store.json                         the index below (written whole, renamed over)
    plugins/marketplaces/<name>/               a git marketplace's clone (a folder one is read
                                               where it is: its path is recorded)
    plugins/installed/<marketplace>/<name>/<version>-<digest>/   an installed copy; an update
                                               makes a new one and swaps the index to it
    plugins/data/<name>@<marketplace>/         ${CLAUDE_PLUGIN_DATA}, kept across updates

A reader takes the index once and reads the copy it names; an update writes the new copy in
full before the index names it, and keeps the copy before it (a process that read the old
index is still reading it), so a reader sees the old plugin or the new, never half of one."""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent_cli.core.errors import ConfigError, UsageError
from agent_cli.core.files.private_file import write_private
from agent_cli.core.settings.schema import user_config_dir
from agent_cli.runtime.extensions.contract import ExtensionSettings

LOCAL = "local"  # the marketplace name of a plugin installed from a folder
INSTALLED = "installed"  # the folder whose presence asks for the extension (registry.py)


class PluginsSettings(ExtensionSettings):
    """settings.json: {"plugins": {"enabled": {"name@marketplace": true}}}"""

    enabled: dict[str, bool] = Field(
        default_factory=dict,
        description="Installed plugins on (true) or off (false), as `name@marketplace`.",
    )

    @field_validator("enabled")
    @classmethod
    def _keys(cls, value: dict[str, bool]) -> dict[str, bool]:
        for key in value:
            name, at, marketplace = key.partition("@")
            if not (name and at and marketplace) or "@" in marketplace:
                raise ValueError(f"'{key}' is not name@marketplace")
        return value


def store_root() -> Path:
    return user_config_dir() / "plugins"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Marketplace(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    source: str  # as the user gave it
    kind: Literal["git", "folder"]
    url: str = ""  # what git clones (kind git)
    path: str  # the clone, or the linked folder
    added_at: str = ""
    updated_at: str = ""


class Consent(BaseModel):
    model_config = ConfigDict(extra="ignore")

    fingerprint: str
    runs: list[str] = Field(default_factory=list)
    at: str = ""


class Installed(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    marketplace: str
    version: str  # the copy's folder name: "<version>-<digest>"
    path: str  # the copy (a Python plugin's: the sources pip installed from)
    source: str  # where it came from: "./plugins/x in <marketplace>", a folder, a git URL
    kind: Literal["bundle", "python"] = "bundle"
    dist: str = ""  # a Python plugin's distribution name (pip uninstall)
    entry: dict[str, Any] | None = None  # its marketplace entry, as installed
    installed_at: str = ""

    @property
    def key(self) -> str:
        return f"{self.name}@{self.marketplace}"


class Index(BaseModel):
    model_config = ConfigDict(extra="ignore")

    marketplaces: dict[str, Marketplace] = Field(default_factory=dict)
    installed: dict[str, Installed] = Field(default_factory=dict)
    consents: dict[str, Consent] = Field(default_factory=dict)


class Store:
    """The index and the folders; `lock()` around a change so two commands do not interleave."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or store_root()
        self.file = self.root / "store.json"

    def read(self) -> Index:
        try:
            text = self.file.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Index()
        except OSError as e:
            raise ConfigError(f"{self.file}: cannot be read ({e.strerror})") from e
        try:
            return Index.model_validate(json.loads(text))
        except (ValueError, ValidationError) as e:
            first = str(e).splitlines()[0]
            raise ConfigError(f"{self.file}: not the plugin store's index ({first})") from e

    def write(self, index: Index) -> None:
        write_private(self.file, index.model_dump_json(indent=2))

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            yield

    def marketplace_dir(self, name: str) -> Path:
        return self.root / "marketplaces" / folder_name(name)

    def plugin_dir(self, marketplace: str, name: str) -> Path:
        return self.root / INSTALLED / folder_name(marketplace) / folder_name(name)

    def data_dir(self, key: str) -> Path:
        name, _, marketplace = key.partition("@")
        return self.root / "data" / f"{folder_name(name)}@{folder_name(marketplace)}"

    def keep_two(self, marketplace: str, name: str, current: str, previous: str) -> None:
        """Every copy of the plugin but `current` and `previous` removed (an update)."""
        folder = self.plugin_dir(marketplace, name)
        for copy in folder.iterdir() if folder.is_dir() else ():
            if copy.name not in (current, previous):
                shutil.rmtree(copy, ignore_errors=True)

    def remove_plugin(self, marketplace: str, name: str) -> None:
        """Every copy of the plugin removed, and the folders above left empty by it."""
        shutil.rmtree(self.plugin_dir(marketplace, name), ignore_errors=True)
        for folder in (self.root / INSTALLED / marketplace, self.root / INSTALLED):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty


def folder_name(name: str) -> str:
    """`name` (a plugin's or a marketplace's, as a marketplace file wrote it) as one folder
    of the store; a name that would reach elsewhere is a usage error."""
    bad = not name or name in (".", "..") or any(c in name for c in "/\\@\0")
    if bad or name != name.strip() or any(ord(c) < 32 for c in name):
        raise UsageError(f"{name!r} cannot name a plugin or marketplace (a path, '@' or empty)")
    return name


def find(index: Index, wanted: str) -> Installed:
    """The installed plugin `name@marketplace`, or `name` when only one marketplace has it."""
    if wanted in index.installed:
        return index.installed[wanted]
    if "@" not in wanted:
        named = [item for item in index.installed.values() if item.name == wanted]
        if len(named) == 1:
            return named[0]
        if named:
            keys = ", ".join(sorted(item.key for item in named))
            raise UsageError(f"plugin '{wanted}' is installed from several marketplaces: {keys}")
    raise UsageError(f"no installed plugin '{wanted}' (see `agent plugin list`)")


# ---- the `plugins.enabled` map of a settings file


def settings_file(scope: str, workspace: Path) -> Path:
    if scope == "user":
        return user_config_dir() / "settings.json"
    return workspace / ".agent" / "settings.json"


def read_settings(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the settings file must hold a JSON object")
    return data


def enabled_in(path: Path) -> dict[str, bool]:
    """The `plugins.enabled` map a settings file holds (what is not a map of booleans: none)."""
    section = read_settings(path).get("plugins")
    found = section.get("enabled") if isinstance(section, dict) else None
    if not isinstance(found, dict):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, bool)}


def set_enabled(path: Path, key: str, value: bool | None) -> bool:
    """`plugins.enabled[key]` set (None: removed) in the settings file, its other keys kept;
    True when the file changed."""
    data = read_settings(path)
    section = data.get("plugins")
    section = dict(section) if isinstance(section, dict) else {}
    enabled = section.get("enabled")
    enabled = dict(enabled) if isinstance(enabled, dict) else {}
    if value is None:
        if key not in enabled:
            return False
        del enabled[key]
    elif enabled.get(key) is value:
        return False
    else:
        enabled[key] = value
    section["enabled"] = enabled
    if not enabled:
        del section["enabled"]
    if section:
        data["plugins"] = section
    else:
        data.pop("plugins", None)
    _write_settings(path, data)
    return True


def _write_settings(path: Path, data: dict[str, Any]) -> None:
    """Written whole and renamed over, as the user's settings file keeps its mode."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    write_private(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    path.chmod(mode)
