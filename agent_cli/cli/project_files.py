"""`agent commands list`, `agent agents list`, `agent skills list` (each `[--json]`) and
`agent skills why PROMPT`: the project files this workspace loads, read without the SDK."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded

if TYPE_CHECKING:
    from agent_cli.project_files.catalog import ProjectFiles
    from agent_cli.project_files.definitions import Kind
    from agent_cli.settings import Settings

AS_JSON = typer.Option(False, "--json", help="One JSON array.")

commands_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)
agents_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)
skills_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)


def _load(workspace: Path) -> tuple[ProjectFiles, Settings]:
    from agent_cli.build import resolve_workspace
    from agent_cli.project_files.catalog import load_project_files
    from agent_cli.settings import load_settings

    root = resolve_workspace(workspace)
    settings = load_settings(root)
    # the warnings are printed once below, not also by logging's last-resort handler
    logging.getLogger("agent_cli.project_files").setLevel(logging.ERROR)
    files = load_project_files(root)
    for warning in files.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    return files, settings


def _list(kind: Kind, workspace: Path, as_json: bool, empty: str) -> None:
    from agent_cli.project_files.listing import rows, text_lines

    files, settings = _load(workspace)
    data = rows(files, kind, settings)
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    typer.echo("\n".join(text_lines(data)) if data else empty)


@commands_app.callback(invoke_without_command=True)
@guarded
def commands_main(ctx: typer.Context, as_json: bool = AS_JSON,
                  workspace: Path = opt.WORKSPACE) -> None:
    """Slash commands from commands/**/*.md (.agent/, .agents/, .claude/, and yours)."""
    if ctx.invoked_subcommand is None:
        _list("command", workspace, as_json, "No slash commands here.")


@commands_app.command("list")
@guarded
def commands_list(as_json: bool = AS_JSON, workspace: Path = opt.WORKSPACE) -> None:
    """Every slash command: file, what it shadows, tools, model, what was ignored."""
    _list("command", workspace, as_json, "No slash commands here.")


@agents_app.callback(invoke_without_command=True)
@guarded
def agents_main(ctx: typer.Context, as_json: bool = AS_JSON,
                workspace: Path = opt.WORKSPACE) -> None:
    """Subagent types for task's agent_type, from agents/**/*.md, and the built-in explore."""
    if ctx.invoked_subcommand is None:
        _list("agent", workspace, as_json, "No subagent types here.")


@agents_app.command("list")
@guarded
def agents_list(as_json: bool = AS_JSON, workspace: Path = opt.WORKSPACE) -> None:
    """Every subagent type: file, what it shadows, tools, model, mode, what was ignored."""
    _list("agent", workspace, as_json, "No subagent types here.")


@skills_app.callback(invoke_without_command=True)
@guarded
def skills_main(ctx: typer.Context, as_json: bool = AS_JSON,
                workspace: Path = opt.WORKSPACE) -> None:
    """Agent Skills from skills/<name>/SKILL.md."""
    if ctx.invoked_subcommand is None:
        _list("skill", workspace, as_json, "No skills here.")


@skills_app.command("list")
@guarded
def skills_list(as_json: bool = AS_JSON, workspace: Path = opt.WORKSPACE) -> None:
    """Every skill: file, what it shadows, allowed tools, what was ignored."""
    _list("skill", workspace, as_json, "No skills here.")


@skills_app.command("why")
@guarded
def skills_why(
    prompt: str = typer.Argument(..., help="The prompt to match against the skills."),
    as_json: bool = AS_JSON,
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Which skills' descriptions match a prompt, and on which words."""
    from agent_cli.project_files.skills import model_skills, why

    files, _ = _load(workspace)
    offered = model_skills(files.skills.items)
    hidden = sorted(set(files.skills.items) - {s.name for s in offered})
    matches = why(prompt, offered)
    if as_json:
        rows = [{"name": m.name, "score": m.score, "shared": m.shared, "reason": m.reason}
                for m in matches]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not matches:
        typer.echo("No skills are offered to the model here.")
    for m in matches:
        mark = "match" if m.shared else "no   "
        typer.echo(f"{mark} {m.score:4.2f}  {m.name}: {m.reason}")
    if hidden:
        typer.echo(f"never offered to the model (disable-model-invocation): {', '.join(hidden)}")
