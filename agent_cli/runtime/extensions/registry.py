"""The extensions of a run: the built-in ones and the installed packages', loaded in dependency
order, and what the spine asks of them (settings sections, tools, slash commands).

A problem with one (it fails to import, is not an Extension, needs one that is missing, brings a
tool whose name is taken) leaves that one, or that part of it, out: one line says so, and the
run goes on."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_cli.core.files.logs import FILE_ONLY
from agent_cli.core.prompts.templates import shipped_prompts_dir
from agent_cli.core.tool_contract import AnyTool, Tool
from agent_cli.runtime.extensions.contract import (
    Extension,
    ExtensionContext,
    ExtensionTool,
    SlashCommand,
)
from agent_cli.runtime.extensions.discovery import (
    COMMAND,
    Declared,
    Problem,
    declared,
    label,
    load,
    said,
)

log = logging.getLogger(__name__)

BUILTIN = "agent_cli"  # the package of the built-in extensions
BUILTINS: tuple[Declared, ...] = ()
"""This repository's features that plug in through the contract, declared as a package's entry
points are: `Declared(name, "module:attribute", BUILTIN)`. None has moved here yet."""

TOOL_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


@dataclass(frozen=True)
class Loaded:
    extension: Extension
    package: str

    def label(self) -> str:
        return label(self.extension.name, self.package)


class Extensions:
    """The loaded extensions, dependencies first, and what was left out (`problems`)."""

    def __init__(
        self,
        loaded: Sequence[Loaded] = (),
        problems: Sequence[Problem] = (),
        declared_names: Iterable[str] = (),
    ) -> None:
        self.loaded = tuple(loaded)
        self._declared = frozenset(declared_names) | {i.extension.name for i in self.loaded}
        found: list[Problem] = list(problems)
        self.commands = _commands(self.loaded, found)  # (extension, command), in order
        self.problems = tuple(found)

    def names(self) -> list[str]:
        return [item.extension.name for item in self.loaded]

    def get(self, name: str) -> Extension | None:
        return next((i.extension for i in self.loaded if i.extension.name == name), None)

    def sections(self) -> tuple[tuple[str, type[Any]], ...]:
        """The settings sections the loaded extensions validate, by name."""
        return tuple(
            (i.extension.name, i.extension.settings)
            for i in self.loaded
            if i.extension.settings is not None
        )

    def ignored(self) -> frozenset[str]:
        """Names declared but not loaded: their settings sections are left unread (the
        problem line already said why)."""
        return self._declared - set(self.names())

    def tools(
        self, context: Callable[[str], ExtensionContext], taken: Iterable[str]
    ) -> tuple[list[AnyTool], list[Problem]]:
        """Each extension's tools for a session, in order; a tool whose name is taken (by the
        agent's `taken` or an earlier extension) or that cannot be offered is left out."""
        offered = dict.fromkeys(taken, "the agent")
        tools: list[AnyTool] = []
        problems: list[Problem] = []
        for item in self.loaded:
            make = item.extension.tools
            if make is None:
                continue
            try:
                made = list(make(context(item.extension.name)))
            except Exception as e:
                detail = "".join(traceback.format_exception(e))
                problems.append(Problem(f"{item.label()}: its tools failed: {said(e)}", detail))
                continue
            for tool in made:
                name = str(getattr(tool, "name", "?"))
                why = tool_problem(tool, item.package == BUILTIN)
                if why is None and name in offered:
                    why = f"'{name}' is already offered by {offered[name]}"
                if why is not None:
                    problems.append(Problem(f"{item.label()}: tool '{name}': {why}; not offered"))
                    continue
                offered[name] = f"extension '{item.extension.name}'"
                tools.append(tool)
        return tools, problems


def _commands(loaded: Sequence[Loaded], problems: list[Problem]) -> list[tuple[str, SlashCommand]]:
    taken: dict[str, str] = {}
    found: list[tuple[str, SlashCommand]] = []
    for item in loaded:
        for command in item.extension.slash_commands:
            if not COMMAND.match(command.name):
                why = f"command '{command.name}' is not a /name"
            elif command.name in taken:
                why = f"{command.name} is already extension '{taken[command.name]}''s"
            else:
                taken[command.name] = item.extension.name
                found.append((item.extension.name, command))
                continue
            problems.append(Problem(f"{item.label()}: {why}; not added"))
    return found


NO_EXTENSIONS = Extensions()


def tool_problem(tool: object, builtin: bool) -> str | None:
    """Why `tool` cannot be offered; None when it can. A package's tool must be an
    ExtensionTool (its description and its permission come with it)."""
    if not isinstance(tool, Tool):
        return f"a {type(tool).__name__} is not a Tool"
    name = tool.name if isinstance(getattr(tool, "name", None), str) else ""
    if not name or len(name) > 64 or not set(name) <= TOOL_NAME_CHARS:
        return "a tool name has 1-64 letters, digits, '_' or '-'"
    if not builtin and not isinstance(tool, ExtensionTool):
        return "make it an ExtensionTool (agent_cli.runtime.extensions)"
    try:
        schema = tool.schema()
    except Exception as e:
        return f"its schema failed: {said(e)}"
    if schema is None:
        shipped = (shipped_prompts_dir() / "tools" / f"{name}.md").is_file()
        return None if shipped else "it has no description"
    return None if str(schema.get("description", "")).strip() else "it has no description"


def in_order(candidates: Sequence[Loaded]) -> tuple[list[Loaded], list[Problem]]:
    """Each extension after those it requires; one missing, skipped or in a circle leaves out
    the ones that need it (a line each)."""
    by_name = {item.extension.name: item for item in candidates}
    ordered: list[Loaded] = []
    problems: list[Problem] = []
    state: dict[str, bool] = {}  # name -> usable, once decided

    def visit(item: Loaded, chain: tuple[str, ...]) -> bool:
        name = item.extension.name
        if name in state:
            return state[name]
        for need in item.extension.requires:
            if need in chain or need == name:
                why = f"needs '{need}', which needs it ({' -> '.join((*chain, name, need))})"
            elif need not in by_name:
                why = f"needs '{need}', which is not installed"
            elif not visit(by_name[need], (*chain, name)):
                why = f"needs '{need}', which was skipped"
            else:
                continue
            problems.append(Problem(f"{item.label()}: {why}; skipped"))
            state[name] = False
            return False
        state[name] = True
        ordered.append(item)
        return True

    for item in candidates:
        visit(item, ())
    return ordered, problems


def discover(
    path: Sequence[str] | None = None, builtins: Sequence[Declared] = BUILTINS
) -> Extensions:
    """The built-in extensions and the installed packages' (`path`: default sys.path)."""
    found = [*builtins, *declared(path)]
    if not found:
        return NO_EXTENSIONS
    candidates: list[Loaded] = []
    problems: list[Problem] = []
    packages: dict[str, str] = {}
    for item in found:
        if item.name in packages:
            taken = f"the name is taken by package {packages[item.name]}"
            problems.append(Problem(f"{label(item.name, item.package)}: {taken}; skipped"))
            continue
        packages[item.name] = item.package
        result = load(item)
        if isinstance(result, Problem):
            problems.append(result)
        else:
            candidates.append(Loaded(result, item.package))
    ordered, unmet = in_order(candidates)
    return Extensions(ordered, [*problems, *unmet], packages)


def say(problems: Iterable[Problem]) -> None:
    """Each problem in one line on stderr (what the log's stderr handler would write)."""
    for problem in problems:
        sys.stderr.write(f"agent: WARNING: {problem.line}\n")


def log_problems(problems: Iterable[Problem]) -> None:
    """Into the log file alone, tracebacks included (stderr had the lines)."""
    for problem in problems:
        detail = f"\n{problem.detail}" if problem.detail else ""
        log.warning("%s%s", problem.line, detail, extra=FILE_ONLY)
