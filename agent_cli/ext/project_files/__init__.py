"""The project files users already have: slash commands, subagent types, Agent Skills and hooks
written for Claude Code (`.claude/`, `.agents/`, `.agent/`), read as they are; and `agent trust`.

Loaded when the workspace (or the user's folders) has such files, when its settings section is
set, or when one of its commands runs. It answers the spine's ports `"workspace_part"` (a
session's rules, hooks, types, commands, skills) and `"workspace_commands"` (the chat's
`/name`), and brings `/commands`, `/agents`, `/skills` and `agent commands|agents|skills|trust`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.runtime.extensions.contract import Extension, SlashCommand

if TYPE_CHECKING:
    import typer

    from agent_cli.ext.project_files.definitions import Kind
    from agent_cli.runtime.extensions.contract import CommandPort, CommandRun, ExtensionContext


def _workspace_part(context: ExtensionContext) -> object:
    from agent_cli.ext.project_files.wire import workspace_parts

    return workspace_parts(context)


def _workspace_commands(context: ExtensionContext) -> object:
    from agent_cli.ext.project_files.chat import workspace_commands

    return workspace_commands(context)


def _listing(kind: Kind) -> CommandRun:
    def run(port: CommandPort, arg: str) -> None:
        from agent_cli.ext.project_files.chat import show_listing

        show_listing(port, kind)

    return run


def _cli() -> typer.Typer:
    from agent_cli.ext.project_files.cli import app

    return app()


COMMANDS_ABOUT = "this workspace's slash commands (.claude/commands, ...)"

EXTENSION = Extension(
    name="project_files",
    about="the workspace's .claude/ commands, agent types, skills, hooks and rules; agent trust",
    cli=_cli,
    ports={"workspace_part": _workspace_part, "workspace_commands": _workspace_commands},
    slash_commands=(
        SlashCommand("/commands", COMMANDS_ABOUT, _listing("command")),
        SlashCommand("/agents", "subagent types task can run", _listing("agent")),
        SlashCommand("/skills", "skills offered to the model", _listing("skill")),
    ),
)
