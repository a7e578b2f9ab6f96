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
from typing import TYPE_CHECKING, Any

from agent_cli.core.files.logs import FILE_ONLY
from agent_cli.core.tool_contract import AnyTool
from agent_cli.runtime.extensions.builtins import BUILTINS as BUILTINS
from agent_cli.runtime.extensions.builtins import LSP_PROGRAMS as LSP_PROGRAMS
from agent_cli.runtime.extensions.builtins import lsp_asked as lsp_asked
from agent_cli.runtime.extensions.builtins import mcp_asked as mcp_asked
from agent_cli.runtime.extensions.checks import Loaded, commands_of, in_order, tool_problem
from agent_cli.runtime.extensions.contract import (
    Extension,
    ExtensionContext,
)
from agent_cli.runtime.extensions.discovery import (
    BUILTIN,
    EVERYTHING,
    Asking,
    Declared,
    Problem,
    declared,
    declared_commands,
    label,
    load,
    said,
)

if TYPE_CHECKING:
    from agent_cli.core.settings.sections import Narrow

log = logging.getLogger(__name__)


class Extensions:
    """The loaded extensions, dependencies first, and what was left out (`problems`). The
    built-ins nothing asked for yet stay `dormant` (declared, not imported) until the spine
    asks for one of their ports or a front end for one by name (`wake`)."""

    def __init__(
        self,
        loaded: Sequence[Loaded] = (),
        problems: Sequence[Problem] = (),
        declared_names: Iterable[str] = (),
        dormant: Sequence[Declared] = (),
        declarations: Sequence[Declared] = (),
    ) -> None:
        self.loaded = tuple(loaded)
        self.dormant = {d.name: d for d in dormant}
        self.declarations = tuple(declarations)  # the built-ins', loaded or not
        self._declared = frozenset(declared_names) | {i.extension.name for i in self.loaded}
        found: list[Problem] = list(problems)
        self.commands = commands_of(self.loaded, found)  # (extension, command), in order
        self.problems = tuple(found)
        self._services: dict[str, object] = {}

    def wake(self, name: str) -> Extension | None:
        """The extension `name`, loaded now if it was dormant (its requirements first); None
        when it is not there or fails (its line is said, once)."""
        if (found := self.get(name)) is not None or name not in self.dormant:
            return found
        declared = self.dormant.pop(name)
        result = load(declared)
        if isinstance(result, Problem):
            self._late_problem(result)
            return None
        for need in result.requires:
            self.wake(need)
        ordered, unmet = in_order([*self.loaded, Loaded(result, declared.package)])
        for problem in unmet:
            self._late_problem(problem)
        self.loaded = tuple(ordered)
        clashes: list[Problem] = []
        self.commands = commands_of(self.loaded, clashes)
        for problem in clashes:  # a late one's slash command clashing is said, as at start
            if problem not in self.problems:
                self._late_problem(problem)
        return self.get(name)

    def _late_problem(self, problem: Problem) -> None:
        self.problems = (*self.problems, problem)
        say([problem])
        log_problems([problem])

    def port(
        self, name: str, context: Callable[[str], ExtensionContext], wake: bool = True
    ) -> object | None:
        """The port `name` for a session, made by the first extension providing it (a dormant
        built-in that declares it is loaded now, unless not `wake`); None when none does."""
        for item in self.loaded:
            if name in item.extension.ports:
                return item.extension.ports[name](context(item.extension.name))
        for sleeping in list(self.dormant.values()) if wake else []:
            if name in sleeping.ports and self.wake(sleeping.name) is not None:
                return self.port(name, context)
        return None

    def service(self, name: str, runtime: object) -> object | None:
        """The run-wide service of extension `name` (made the first time it is asked for)."""
        if name in self._services:
            return self._services[name]
        extension = self.wake(name)
        if extension is None or extension.service is None:
            return None
        made = self._services[name] = extension.service(runtime)
        return made

    def made(self, kind: str, context: Callable[[str], ExtensionContext]) -> list[Any]:
        """Every loaded extension's `kind` of contribution for a session ("stages", "guides",
        "observers", "middleware", "around_turn", "panel_parts", "status_parts"), in order."""
        found: list[Any] = []
        for item in self.loaded:
            make = getattr(item.extension, kind)
            if make is not None:
                found.extend(make(context(item.extension.name)))
        return found

    def cli_commands(self) -> dict[str, tuple[str, str]]:
        """command -> (extension, help line): the loaded ones' and the dormant built-ins'."""
        return declared_commands(self.declarations)

    async def aclose(self) -> None:
        """The services made in this run end with it, last made first."""
        for service in reversed(list(self._services.values())):
            close = getattr(service, "aclose", None)
            if close is not None:
                await close()
        self._services.clear()

    def builtin(self, name: str) -> bool:
        """`name` is one of the agent's own features (not a package's)."""
        return any(i.extension.name == name and i.package == BUILTIN for i in self.loaded)

    def names(self) -> list[str]:
        return [item.extension.name for item in self.loaded]

    def get(self, name: str) -> Extension | None:
        return next((i.extension for i in self.loaded if i.extension.name == name), None)

    def sections(self) -> tuple[tuple[str, type[Any]], ...]:
        """The settings sections the loaded extensions validate, by name."""
        found: list[tuple[str, Any]] = []
        for extension in (i.extension for i in self.loaded):
            if extension.settings is not None:
                found.append((extension.name, extension.settings))
            found.extend(extension.keys.items())
        return tuple(found)

    def narrowers(self) -> dict[str, Narrow]:
        """What each loaded extension keeps of an untrusted workspace's section (`narrow`)
        and of its other keys."""
        found: dict[str, Narrow] = {}
        for extension in (i.extension for i in self.loaded):
            if extension.narrow is not None:
                found[extension.name] = extension.narrow
            found.update({k: key.narrow for k, key in extension.keys.items() if key.narrow})
        return found

    def ignored(self) -> frozenset[str]:
        """Names declared but not loaded (and a built-in's other keys): their settings are
        left unread (the problem line already said why)."""
        names = self._declared - set(self.names())
        return names | {k for d in self.declarations if d.name in names for k in d.keys}

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


NO_EXTENSIONS = Extensions()


def discover(
    path: Sequence[str] | None = None,
    builtins: Sequence[Declared] = BUILTINS,
    asking: Asking = EVERYTHING,
) -> Extensions:
    """The installed packages' extensions (`path`: default sys.path) and the built-ins `asking`
    asks for; the other built-ins stay dormant."""
    asked = [d for d in builtins if d.wanted(asking)]
    dormant = {d.name: d for d in builtins if not d.wanted(asking)}
    found = [*asked, *declared(path)]
    if not found and not dormant:
        return NO_EXTENSIONS
    candidates: list[Loaded] = []
    problems: list[Problem] = []
    packages: dict[str, str] = {}
    for item in found:  # grows by the dormant built-ins that what is loaded requires
        if item.name in packages:
            taken = f"the name is taken by package {packages[item.name]}"
            problems.append(Problem(f"{label(item.name, item.package)}: {taken}; skipped"))
            continue
        packages[item.name] = item.package
        result = load(item)
        if isinstance(result, Problem):
            problems.append(result)
            continue
        candidates.append(Loaded(result, item.package))
        found += [dormant.pop(need) for need in result.requires if need in dormant]
    ordered, unmet = in_order(candidates)
    return Extensions(ordered, [*problems, *unmet], packages, list(dormant.values()), builtins)


def say(problems: Iterable[Problem]) -> None:
    """Each problem in one line on stderr (what the log's stderr handler would write)."""
    for problem in problems:
        sys.stderr.write(f"agent: WARNING: {problem.line}\n")


def log_problems(problems: Iterable[Problem]) -> None:
    """Into the log file alone, tracebacks included (stderr had the lines)."""
    for problem in problems:
        detail = f"\n{problem.detail}" if problem.detail else ""
        log.warning("%s%s", problem.line, detail, extra=FILE_ONLY)
