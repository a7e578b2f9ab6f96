"""Finding the extensions that are there, and loading one.

Packages declare an entry point in the group `agent_cli.extensions` (`name = module:attr`). A
run reads only the `entry_points.txt` files of the distributions on the import path, looking
for the group's header (~1 ms; `importlib.metadata.entry_points()` parses them all, ~10 ms),
and imports nothing unless one declares it. The working directory is never searched: `python
-m` puts it on the import path, and a repository must not plant an extension there.
"""

# ruff: noqa: PTH123 - plain strings: this runs before every run's first request
from __future__ import annotations

import importlib
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when an extension is loaded: `agent --help` reads declarations only
    from agent_cli.runtime.extensions.contract import Extension

GROUP = "agent_cli.extensions"
BUILTIN = "agent_cli"  # the package of the built-in extensions
_HEADER = f"[{GROUP}]".encode()
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
COMMAND = re.compile(r"^/[a-z][a-z0-9_-]*$")


@dataclass(frozen=True)
class Asking:
    """What a run is asked to do, known before any extension is imported: the top-level keys
    of every settings layer (the command line's included), the workspace, and the command."""

    settings: frozenset[str] = frozenset()
    workspace: Path | None = None
    command: str = ""  # "run", "chat", "mcp", ... ("" when unknown: everything is asked)

    def file(self, *names: str) -> bool:
        """One of `names` (relative to the workspace) is there."""
        return self.workspace is not None and any((self.workspace / n).exists() for n in names)


EVERYTHING = Asking()


def always(asking: Asking) -> bool:
    return True


@dataclass(frozen=True)
class Declared:
    """An extension as it is declared, before anything of it is imported. A package's is loaded
    in every run; a built-in's when `asked` says the run asks for it, when its settings section
    is set, when its CLI `commands` run, or when the spine asks for one of its `ports`."""

    name: str  # the entry point's name
    target: str  # "module:attribute"
    package: str  # "hello_ext 0.1" (a built-in: "agent_cli")
    asked: Callable[[Asking], bool] = always
    ports: tuple[str, ...] = ()
    commands: tuple[tuple[str, str], ...] = ()  # (CLI command, its help line)
    keys: tuple[str, ...] = ()  # its top-level settings keys beside its name (Extension.keys)
    trusts: tuple[str, ...] = ()  # workspace files its `trust_items` reads (a built-in's)

    def wanted(self, asking: Asking) -> bool:
        if asking is EVERYTHING or self.name in asking.settings:
            return True
        if not asking.settings.isdisjoint(self.keys):  # so a bad value is still refused
            return True
        return asking.command in {c for c, _ in self.commands} or self.asked(asking)


@dataclass(frozen=True)
class Problem:
    """Why an extension (or a part of one) is left out: `line` for stderr, `detail` (a
    traceback) for the log file alone."""

    line: str
    detail: str = ""


def label(name: str, package: str) -> str:
    return f"extension '{name}' (package {package})"


def declared_commands(builtins: Iterable[Declared]) -> dict[str, tuple[str, str]]:
    """command -> (extension, help line), as the built-ins declare them (nothing imported)."""
    found: dict[str, tuple[str, str]] = {}
    for builtin in builtins:
        for command, about in builtin.commands:
            found.setdefault(command, (builtin.name, about))
    return found


def declared(path: Sequence[str] | None = None) -> list[Declared]:
    """The group's entry points on `path` (default sys.path), first distribution of a name
    first; a distribution found again further on is the same one, shadowed."""
    here = os.path.realpath(Path.cwd())
    found: list[Declared] = []
    seen: set[str] = set()
    for entry in sys.path if path is None else path:
        if not entry or os.path.realpath(entry) == here:
            continue
        for folder in _declaring(entry):
            dist = Path(folder).name.rsplit(".", 1)[0]  # hello_ext-0.1
            name, _, version = dist.partition("-")
            if name.lower() not in seen:
                seen.add(name.lower())
                found += _entry_points(folder, f"{name} {version}".strip())
    return found


def _declaring(entry: str) -> list[str]:
    """The distribution folders in `entry` whose entry_points.txt names the group."""
    try:
        listing = os.scandir(entry)
    except OSError:  # not a folder (a zip), or gone
        return []
    hits = []
    with listing:
        for item in listing:
            if not item.name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(item.path + "/entry_points.txt", "rb") as f:  # pathlib: twice the time
                    text = f.read()
            except OSError:
                continue
            if _HEADER in text:
                hits.append(item.path)
    return sorted(hits)


def _entry_points(folder: str, package: str) -> list[Declared]:
    from importlib.metadata import PathDistribution  # only once a package declares one

    points = PathDistribution(Path(folder)).entry_points.select(group=GROUP)
    return [Declared(p.name, p.value, package) for p in points]


def load(declared: Declared) -> Extension | Problem:
    """The declared value imported and checked; never raises."""
    from agent_cli.runtime.extensions.contract import Extension

    module, _, attribute = declared.target.partition(":")
    try:
        value: object = importlib.import_module(module.strip())
        for part in filter(None, attribute.strip().split(".")):
            value = getattr(value, part)
        if not isinstance(value, Extension) and callable(value):
            value = value()  # a factory of the Extension
    except (Exception, SystemExit) as e:
        detail = "".join(traceback.format_exception(e))
        return Problem(
            f"{label(declared.name, declared.package)}: import failed: {said(e)}; skipped", detail
        )
    if not isinstance(value, Extension):
        kind = type(value).__name__
        where = label(declared.name, declared.package)
        return Problem(f"{where}: {declared.target} is of type {kind}, not an Extension")
    # a built-in whose section is still the agent's own (it brings none) keeps that name
    own = declared.package == BUILTIN and value.settings is None and not value.keys
    why = problem_with(value, declared.name, () if own else taken_settings_names())
    return Problem(f"{label(declared.name, declared.package)}: {why}; skipped") if why else value


def said(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def taken_settings_names() -> frozenset[str]:
    from agent_cli.core.settings.schema import Settings

    return frozenset({*Settings.model_fields, *(n for n in dir(Settings) if n[:2] != "__")})


def problem_with(extension: Extension, name: str, taken: Iterable[str]) -> str | None:
    """What makes an extension unusable, in a few words; None when nothing does."""
    from agent_cli.runtime.extensions.contract import SlashCommand

    if extension.name != name:
        return f"it calls itself '{extension.name}' under the entry point '{name}'"
    if not NAME.match(name) or name.startswith("model_"):
        return f"'{name}' is not a name (lower-case letters, digits and '_')"
    taken = set(taken)
    if name in taken:
        return f"'{name}' is a key of the agent's own settings"
    if clash := sorted(taken & set(extension.keys)):
        return f"'{clash[0]}' is a key of the agent's own settings"
    requires = extension.requires
    if not isinstance(requires, tuple) or not all(isinstance(r, str) for r in requires):
        return "`requires` must be a tuple of extension names"
    if extension.tools is not None and not callable(extension.tools):
        return "`tools` must be a function of the ExtensionContext"
    if not all(isinstance(c, SlashCommand) for c in extension.slash_commands):
        return "`slash_commands` must hold SlashCommand values"
    return _settings_problem(extension.settings)


def _settings_problem(model: object) -> str | None:
    from pydantic import BaseModel, ValidationError

    if model is None:
        return None
    if not isinstance(model, type) or not issubclass(model, BaseModel):
        return f"its settings model is a {type(model).__name__}, not a pydantic model"
    if model.model_config.get("extra") != "forbid":
        return f"its settings model {model.__name__} must refuse unknown keys (extra='forbid')"
    try:
        model()
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"its settings model {model.__name__} has no default for '{where}'"
    except Exception as e:
        return f"its settings model {model.__name__} cannot be made ({said(e)})"
    return None
