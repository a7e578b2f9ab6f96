"""The project files users already have: slash commands, subagent types, Agent Skills and hooks
written for Claude Code (`.claude/`, `.agents/`, `.agent/`), read as they are; and `agent trust`.

Loaded when the workspace (or the user's folders) has such files, when its settings section is
set, or when one of its commands runs; it answers the spine's port `"workspace_part"`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.runtime.extensions.contract import Extension

if TYPE_CHECKING:
    import typer

    from agent_cli.runtime.extensions.contract import ExtensionContext


def _workspace_part(context: ExtensionContext) -> object:
    from agent_cli.ext.project_files.wire import workspace_parts

    return workspace_parts(context)


def _cli() -> typer.Typer:
    from agent_cli.ext.project_files.cli import app

    return app()


EXTENSION = Extension(
    name="project_files",
    about="the workspace's .claude/ commands, agent types, skills, hooks and rules; agent trust",
    cli=_cli,
    ports={"workspace_part": _workspace_part},
)
