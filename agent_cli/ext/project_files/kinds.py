"""How each kind is read: slash commands (`commands/**/*.md`), subagent types (`agents/**/*.md`),
Agent Skills (`skills/<name>/SKILL.md`); and the built-in read-only `explore` type."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_cli.ext.project_files import vocabulary as vocab
from agent_cli.ext.project_files.definitions import (
    Definition,
    Kind,
    KindReader,
    description_of,
    ignored_keys,
    text_value,
)
from agent_cli.ext.project_files.frontmatter import FrontMatter
from agent_cli.ext.project_files.sources import Root, markdown_files
from agent_cli.subagent import explore

COMMAND_KEYS = frozenset(
    {"description", "argument-hint", "allowed-tools", "allowed_tools", "tools", "model", "name"}
    | {"disable-model-invocation"}
)
AGENT_KEYS = frozenset(
    {"name", "description", "tools", "disallowedTools", "model", "permissionMode", "maxTurns"}
    | {"color", "isolation"}
)
SKILL_KEYS = frozenset(
    {"name", "description", "allowed-tools", "argument-hint", "model", "license"}
    | {"disable-model-invocation", "user-invocable", "metadata"}
)


def set_tools(item: Definition, value: Any) -> None:
    """The resolved tools, our permission patterns, and what we have no tool for."""
    refs = vocab.tool_refs(value)
    item.tools = vocab.allowed_tools(refs)
    item.unavailable = [r.original for r in refs if r.tool is None]
    item.patterns = list(dict.fromkeys(p for r in refs for p in vocab.rule_patterns(r.original)))


def _base(
    kind: Kind, name: str, fm: FrontMatter, path: Path, root: Root, known: frozenset[str]
) -> Definition:
    model = text_value(fm.data.get("model"))
    return Definition(
        kind=kind,
        name=name,
        description=description_of(fm),
        path=str(path),
        scope=root.scope,
        model=model or None,
        ignored=ignored_keys(fm.data, known, path),
        body=fm.body.strip("\n"),
    )


def _flag(value: Any) -> bool:
    return str(value).strip().lower() in ("true", "yes", "1")


# -- commands -------------------------------------------------------------------------------


def command_name(path: Path, folder: Path) -> str:
    """A sub-folder is a namespace: `frontend/component.md` is `frontend:component`."""
    parts = path.relative_to(folder).with_suffix("").parts
    return ":".join(parts)


def build_command(name: str, fm: FrontMatter, path: Path, root: Root) -> Definition:
    item = _base("command", name, fm, path, root, COMMAND_KEYS)
    tools = next(
        (fm.data[k] for k in ("allowed-tools", "allowed_tools", "tools") if k in fm.data), None
    )
    set_tools(item, tools)
    item.meta = {"argument_hint": text_value(fm.data.get("argument-hint")) or ""}
    return item


COMMANDS = KindReader("command", "commands", markdown_files, command_name, build_command)


# -- subagent types -------------------------------------------------------------------------


def agent_name(path: Path, folder: Path) -> str:
    if path.stem.upper() == "AGENT" and path.parent != folder:  # folder-per-agent
        return path.parent.name
    return path.stem


def build_agent_type(name: str, fm: FrontMatter, path: Path, root: Root) -> Definition:
    item = _base("agent", name, fm, path, root, AGENT_KEYS)
    data = fm.data
    if data.get("tools") not in (None, "", []):
        set_tools(item, data["tools"])
    disallowed = vocab.tool_refs(data.get("disallowedTools"))
    max_turns = data.get("maxTurns")
    item.meta = {
        "all_tools": data.get("tools") in (None, "", []),
        "disallowed": vocab.allowed_tools(disallowed),
        "permission_mode": text_value(data.get("permissionMode")) or "",
        "max_turns": int(str(max_turns)) if str(max_turns).strip().isdigit() else None,
        "color": text_value(data.get("color")) or "",
        "isolation": (text_value(data.get("isolation")) or "").strip().lower(),
    }
    if item.meta["isolation"] not in ("", "worktree"):
        item.notes.append(f"isolation {item.meta['isolation']!r}: only 'worktree' is known")
        item.meta["isolation"] = ""
    if max_turns is not None and item.meta["max_turns"] is None:
        item.notes.append(f"maxTurns {max_turns!r} is not a number: the default is used")
    return item


AGENTS = KindReader("agent", "agents", markdown_files, agent_name, build_agent_type)

EXPLORE = Definition(
    kind="agent",
    name=explore.NAME,
    description=explore.DESCRIPTION,
    path="(built in)",
    scope="builtin",
    tools=list(explore.TOOLS),
    meta={
        "all_tools": False,
        "disallowed": [],
        "permission_mode": explore.MODE,
        "max_turns": None,
        "color": explore.COLOR,
    },
    body=explore.BODY,
)


# -- skills ---------------------------------------------------------------------------------


def skill_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*/*") if p.name.upper() == "SKILL.MD" and p.is_file())


def skill_name(path: Path, folder: Path) -> str:
    return path.parent.name


def build_skill(name: str, fm: FrontMatter, path: Path, root: Root) -> Definition:
    item = _base("skill", name, fm, path, root, SKILL_KEYS)
    set_tools(item, fm.data.get("allowed-tools"))
    item.meta = {
        "folder": str(path.parent),
        "argument_hint": text_value(fm.data.get("argument-hint")) or "",
        "model_invocable": not _flag(fm.data.get("disable-model-invocation")),
        "user_invocable": str(fm.data.get("user-invocable", "true")).strip().lower() != "false",
    }
    return item


SKILLS = KindReader("skill", "skills", skill_files, skill_name, build_skill)
