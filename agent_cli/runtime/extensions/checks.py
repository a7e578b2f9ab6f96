"""What makes extensions usable together: each after those it requires, each slash command
and tool under a name of its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_cli.core.prompts.templates import shipped_prompts_dir
from agent_cli.core.tool_contract import Tool
from agent_cli.runtime.extensions.contract import Extension, ExtensionTool, SlashCommand
from agent_cli.runtime.extensions.discovery import COMMAND, Problem, label, said

TOOL_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


@dataclass(frozen=True)
class Loaded:
    extension: Extension
    package: str

    def label(self) -> str:
        return label(self.extension.name, self.package)


def commands_of(
    loaded: Sequence[Loaded], problems: list[Problem]
) -> list[tuple[str, SlashCommand]]:
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
