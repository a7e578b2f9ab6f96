"""`agent commands list`, `agent agents list`, `agent skills list` (each `[--json]`) and
`agent skills why PROMPT`: the project files this workspace loads, read without the SDK; and
`agent trust [--revoke] [--list]`: let this workspace's own files widen what runs unasked."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded

if TYPE_CHECKING:
    from agent_cli.core.settings.schema import Settings
    from agent_cli.ext.project_files.catalog import ProjectFiles
    from agent_cli.policy.trust import TrustStore

Kind = Literal["command", "agent", "skill"]

AS_JSON = typer.Option(False, "--json", help="One JSON array.")


def _settings(root: Path, command: str) -> Settings:
    """The settings with the sections of the extensions this listing asks for: an enabled
    plugin's `plugins` section is the plugins extension's, unknown to the core schema."""
    from agent_cli.core.settings.schema import layer_keys
    from agent_cli.runtime.build import installed
    from agent_cli.runtime.extensions.discovery import Asking
    from agent_cli.runtime.extensions.settings import read_settings

    extensions = installed(Asking(layer_keys(root, None), root, command))
    return read_settings(root, extensions=extensions)


def _load(workspace: Path, command: str) -> tuple[ProjectFiles, Settings]:
    from agent_cli.ext.project_files.catalog import load_project_files
    from agent_cli.runtime.build import resolve_workspace
    from agent_cli.runtime.extensions.bundle_port import workspace_bundles

    root = resolve_workspace(workspace)
    settings = _settings(root, command)
    # the warnings are printed once below, not also by logging's last-resort handler
    logging.getLogger("agent_cli.ext.project_files").setLevel(logging.ERROR)
    source = workspace_bundles(root, command)
    files = load_project_files(root, bundles=source.bundles())
    for warning in [*files.warnings, *source.warnings()]:
        sys.stderr.write(f"warning: {warning}\n")
    return files, settings


def _list(kind: Kind, workspace: Path, as_json: bool, empty: str) -> None:
    from agent_cli.ext.project_files.listing import rows, text_lines

    files, settings = _load(workspace, f"{kind}s")
    data = rows(files, kind, settings)
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    typer.echo("\n".join(text_lines(data)) if data else empty)


def _group(kind: Kind, empty: str, about: str) -> typer.Typer:
    """`agent <kind>s` and `agent <kind>s list`: the same listing."""
    group = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)

    @group.callback(invoke_without_command=True, help=about)
    @guarded
    def listing(
        ctx: typer.Context, as_json: bool = AS_JSON, workspace: Path = opt.WORKSPACE
    ) -> None:
        if ctx.invoked_subcommand is None:
            _list(kind, workspace, as_json, empty)

    @group.command("list", help=f"{about} File, what it shadows, tools, model, what was ignored.")
    @guarded
    def list_all(as_json: bool = AS_JSON, workspace: Path = opt.WORKSPACE) -> None:
        _list(kind, workspace, as_json, empty)

    return group


commands_app = _group(
    "command",
    "No slash commands here.",
    "Slash commands from commands/**/*.md (.agent/, .agents/, .claude/, yours).",
)
agents_app = _group(
    "agent",
    "No subagent types here.",
    "Subagent types for task's agent_type (agents/**/*.md, and explore).",
)
skills_app = _group("skill", "No skills here.", "Agent Skills from skills/<name>/SKILL.md.")


@skills_app.command("why")
@guarded
def skills_why(
    prompt: str = typer.Argument(..., help="The prompt to match against the skills."),
    as_json: bool = AS_JSON,
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Which skills' descriptions match a prompt, and on which words."""
    from agent_cli.ext.project_files.skills import model_skills, why

    files, _ = _load(workspace, "skills")
    offered = model_skills(files.skills.items)
    hidden = sorted(set(files.skills.items) - {s.name for s in offered})
    matches = why(prompt, offered)
    if as_json:
        rows = [
            {"name": m.name, "score": m.score, "shared": m.shared, "reason": m.reason}
            for m in matches
        ]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not matches:
        typer.echo("No skills are offered to the model here.")
    for m in matches:
        mark = "match" if m.shared else "no   "
        typer.echo(f"{mark} {m.score:4.2f}  {m.name}: {m.reason}")
    if hidden:
        typer.echo(f"never offered to the model (disable-model-invocation): {', '.join(hidden)}")


@guarded
def trust(
    revoke: bool = typer.Option(False, "--revoke", help="Stop trusting this workspace."),
    list_all: bool = typer.Option(False, "--list", help="List every trusted workspace."),
    as_json: bool = typer.Option(False, "--json", help="With --list: one JSON array."),
    workspace: Path = opt.WORKSPACE,
) -> None:
    """Trust the workspace: its hooks, allow rules, permission mode, MCP servers and commands'
    allowed tools take effect. Deny rules always apply, trusted or not."""
    from agent_cli.ext.project_files.catalog import project_trust_items
    from agent_cli.policy.trust import TrustStore, grant_items
    from agent_cli.runtime.build import resolve_workspace
    from agent_cli.runtime.trust_items import widening_items

    store = TrustStore()
    if list_all:
        _list_trusted(store, as_json)
        return
    root = resolve_workspace(workspace)
    if revoke:
        removed = store.revoke(root)
        typer.echo(f"{'no longer trusted' if removed else 'was not trusted'}: {root}")
        return
    items = widening_items(root, [project_trust_items])
    store.trust(root, grant_items(items))
    typer.echo(f"trusted: {root}")
    for item in items:
        typer.echo(f"  {item.description}  ({Path(item.source).name})")
    if not items:
        typer.echo("  (it asks for nothing that needs trust today)")


def _list_trusted(store: TrustStore, as_json: bool) -> None:
    grants = store.trusted()
    if as_json:
        rows = [{"workspace": k, "trusted_at": g.trusted_at} for k, g in grants.items()]
        typer.echo(json.dumps(rows, indent=2))
    for path, grant in grants.items():
        if not as_json:
            typer.echo(f"{grant.trusted_at}  {path}")


HELP = {  # the registry line says the same, so `agent --help` lists them unimported
    "commands": "List the slash commands of this workspace.",
    "agents": "List the subagent types task can run.",
    "skills": "List skills; `why PROMPT` shows which match.",
    "trust": "Trust this workspace's hooks, allow rules, MCP servers and commands.",
}


def app() -> typer.Typer:
    """The extension's commands: `agent commands|agents|skills|trust`."""
    made = typer.Typer(add_completion=False, rich_markup_mode=None)
    made.add_typer(commands_app, name="commands", help=HELP["commands"])
    made.add_typer(agents_app, name="agents", help=HELP["agents"])
    made.add_typer(skills_app, name="skills", help=HELP["skills"])
    made.command("trust", help=HELP["trust"])(trust)
    return made
