"""The three kinds of Markdown definition (slash commands, subagent types, skills): their
models, and one loader that reads any of them from every source, nearest first.

A broken file gives one warning line naming it and every other file still loads; unknown
front-matter keys are ignored (logged at debug, listed in `ignored`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent_cli.ext.project_files.frontmatter import FrontMatter, parse
from agent_cli.ext.project_files.sources import Root, Scope

log = logging.getLogger(__name__)

Kind = Literal["command", "agent", "skill"]
MAX_FILE_BYTES = 256_000
DESCRIPTION_CHARS = 1_024
_NAME = re.compile(r"^[\w][\w.:@+-]{0,127}$")


class Definition(BaseModel):
    """What `list` shows of one definition; the body stays out of the JSON listing."""

    kind: Kind = Field(description="command, agent or skill.")
    name: str = Field(description="What it is called: `/name`, `agent_type`, the skill's name.")
    description: str = Field(default="", description="From the front matter, else the body.")
    path: str = Field(description="The file it was read from.")
    scope: Scope = Field(description="workspace, user, builtin or plugin.")
    plugin: str = Field(default="", description="The plugin it comes from (scope plugin).")
    shadows: list[str] = Field(default_factory=list, description="Files of the same name it hides.")
    tools: list[str] = Field(default_factory=list, description="Our tools it names (resolved).")
    patterns: list[str] = Field(default_factory=list, description="Our permission patterns.")
    unavailable: list[str] = Field(default_factory=list, description="Tools we do not have.")
    model: str | None = Field(default=None, description="Front-matter model as written.")
    ignored: list[str] = Field(default_factory=list, description="Front-matter keys not used.")
    notes: list[str] = Field(default_factory=list, description="What was not understood.")
    meta: dict[str, Any] = Field(default_factory=dict, description="Kind-specific fields.")
    body: str = Field(default="", exclude=True, description="The Markdown after the front matter.")


class LoadError(Exception):
    """A file that cannot be a definition; its message is the one warning line."""


@dataclass
class LoadedDefinitions:
    items: dict[str, Definition] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def add(self, item: Definition) -> None:
        first = self.items.get(item.name)
        if first is None:
            self.items[item.name] = item
        else:  # nearest wins; it shows what it shadows
            first.shadows.append(item.path)


# one reader per kind: (files of a root, name of a file, build from front matter)
Builder = Callable[[str, FrontMatter, Path, Root], Definition]


@dataclass(frozen=True)
class KindReader:
    kind: Kind
    folder: str
    files: Callable[[Path], list[Path]]
    name_of: Callable[[Path, Path], str]  # (file, folder) -> name from the file
    build: Builder


def read_text(path: Path, root: Root) -> str:
    if root.scope == "workspace" and path.is_symlink():
        target = path.resolve()
        if not target.is_relative_to(root.path.parent.resolve()):
            raise LoadError(f"{path}: a symlink out of the project ({target}); not read")
    try:
        data = path.read_bytes()[: MAX_FILE_BYTES + 1]
    except OSError as e:
        raise LoadError(f"{path}: cannot be read ({e.strerror or e})") from e
    if len(data) > MAX_FILE_BYTES:
        raise LoadError(f"{path}: over {MAX_FILE_BYTES:,} bytes; not read")
    if b"\0" in data[:4096]:
        raise LoadError(f"{path}: a binary file; not read")
    return data.decode("utf-8", errors="replace")


def load_kind(reader: KindReader, roots: list[Root]) -> LoadedDefinitions:
    loaded = LoadedDefinitions()
    for root in roots:
        folder = root.path / reader.folder
        for path in reader.files(folder):
            try:
                item = load_file(reader, path, folder, root)
            except LoadError as e:
                log.warning("%s", e)
                loaded.warnings.append(str(e))
                continue
            except Exception as e:  # one broken file never stops the others
                message = f"{path}: not loaded ({type(e).__name__}: {e})"
                log.warning("%s", message)
                loaded.warnings.append(message)
                continue
            loaded.add(item)
    return loaded


def load_file(reader: KindReader, path: Path, folder: Path, root: Root) -> Definition:
    fm = parse(read_text(path, root))
    name = front_name(fm.data.get("name")) if reader.kind != "command" else None
    name = name or reader.name_of(path, folder)
    if not name or not _NAME.match(name):
        raise LoadError(f"{path}: yields no usable name; not loaded")
    item = reader.build(name, fm, path, root)
    if fm.yaml_error:
        item.notes.append(f"front matter is not strict YAML ({fm.yaml_error}); read line by line")
    return item


def front_name(value: Any) -> str | None:
    if isinstance(value, str) and _NAME.match(value.strip()):
        return value.strip()
    return None


def description_of(fm: FrontMatter) -> str:
    value = fm.data.get("description")
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    text = str(value).strip() if value not in (None, "") else body_summary(fm.body)
    text = text.replace("\\n", "\n")
    return re.sub(r"\s+", " ", text).strip()[:DESCRIPTION_CHARS]


def body_summary(body: str) -> str:
    """The first paragraph line of the body, else its first heading."""
    heading = ""
    for line in body.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith(("```", "<!--", "---")):
            continue
        if stripped.startswith("#"):
            heading = heading or stripped.lstrip("#").strip()
            continue
        return stripped
    return heading


def text_value(value: Any) -> str | None:
    """A scalar the file meant as text (`[a] [b]` hints come back from YAML as lists)."""
    if value is None:
        return None
    if isinstance(value, list):
        return " ".join(f"[{v}]" if not isinstance(v, list) else str(v) for v in value)
    return str(value).strip()


def ignored_keys(data: dict[str, Any], known: frozenset[str], path: Path) -> list[str]:
    ignored = sorted(k for k in data if k not in known)
    if ignored:
        log.debug("%s: front-matter keys ignored: %s", path, ", ".join(ignored))
    return ignored
