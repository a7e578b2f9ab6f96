"""What enabled plugins bring to the project files (the port `"plugin_bundles"`): each bundle's
commands as `/plugin:command`, agent types as `plugin:type`, skills as `plugin:skill`, their
Markdown with `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` in place, and its hooks read
as `.claude/settings.json`'s are, each run with the bundle's environment.

A plugin was consented to when it was installed (a project's list applies once the workspace is
trusted: the port leaves it out before), so what it brings is the user's own: nothing of it
waits for `agent trust`. A bare `/command` reaches a plugin's command while no other command
has that name (catalog.py's `resolve_command`)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_cli.ext.project_files.claude.settings import ClaudeSettings, hooks_of
from agent_cli.ext.project_files.definitions import (
    Definition,
    LoadedDefinitions,
    LoadError,
    load_file,
)
from agent_cli.ext.project_files.frontmatter import parse
from agent_cli.ext.project_files.kinds import AGENTS, COMMANDS, SKILLS, build_command
from agent_cli.ext.project_files.sources import Root

if TYPE_CHECKING:
    from agent_cli.runtime.bundles import Bundle, BundleCommand

log = logging.getLogger(__name__)


class Parts(Protocol):
    """What a bundle adds to (catalog.py's ProjectFiles)."""

    commands: LoadedDefinitions
    agents: LoadedDefinitions
    skills: LoadedDefinitions
    claude: ClaudeSettings


def add_bundles(files: Parts, bundles: Sequence[Bundle]) -> None:
    """Every bundle's definitions and hooks after the workspace's and the user's own (a name
    of theirs is never replaced: a plugin's are namespaced)."""
    for bundle in bundles:
        root = Root(bundle.root, "plugin")
        for command in bundle.commands:
            _add(files.commands, bundle, partial(_command, command, root))
        for path in bundle.agents:
            _add(files.agents, bundle, partial(load_file, AGENTS, path, path.parent, root))
        for folder in bundle.skills:
            skill = _skill_file(folder)
            _add(files.skills, bundle, partial(load_file, SKILLS, skill, folder.parent, root))
        add_hooks(files.claude, bundle)


def _add(loaded: LoadedDefinitions, bundle: Bundle, read: Callable[[], Definition]) -> None:
    try:
        item = read()
    except LoadError as e:
        loaded.warnings.append(f"plugin {bundle.name}: {e}")
        return
    except Exception as e:  # one broken file never stops the others
        loaded.warnings.append(f"plugin {bundle.name}: not loaded ({type(e).__name__}: {e})")
        return
    item.name = f"{bundle.name}:{item.name}"
    item.plugin = bundle.name
    item.body = bundle.expand(item.body)
    loaded.add(item)


def _command(command: BundleCommand, root: Root) -> Definition:
    """A command from its file, or from the manifest's `content`; named by the manifest."""
    if command.path is not None:
        item = load_file(COMMANDS, command.path, command.path.parent, root)
        path = str(command.path)
    else:
        path = f"{root.path} (plugin.json commands.{command.name})"
        item = build_command(command.name, parse(command.content or ""), Path(path), root)
    item.name, item.path = command.name, path
    if command.description:
        item.description = command.description
    return item


def _skill_file(folder: Path) -> Path:
    found = [p for p in folder.glob("*") if p.name.upper() == "SKILL.MD" and p.is_file()]
    return found[0] if found else folder / "SKILL.md"


def add_hooks(claude: ClaudeSettings, bundle: Bundle) -> None:
    """The bundle's hooks (Claude Code's events, as in settings.json), each command with the
    plugin's variables expanded and its environment given."""
    source = f"plugin {bundle.name} ({bundle.root})"
    env = tuple(bundle.environment().items())
    for hook in hooks_of(dict(bundle.hooks), source, claude):
        command = bundle.expand(hook.command)
        claude.hooks.append((dataclasses.replace(hook, command=command, env=env), "plugin"))
