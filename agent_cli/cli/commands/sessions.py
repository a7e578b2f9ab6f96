"""`agent sessions list|show`: what was recorded, without importing the SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded, state_paths

sessions_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)


@sessions_app.callback(invoke_without_command=True)
def sessions_default(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    if ctx.invoked_subcommand is None:
        list_sessions(as_json=as_json, workspace=workspace, state_dir=state_dir)


@sessions_app.command("list")
@guarded
def list_sessions(
    as_json: bool = typer.Option(False, "--json", help="One JSON array."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """List the sessions here, the newest activity first (* marks what --continue resumes)."""
    from agent_cli.cli.sessions_list import print_listing
    from agent_cli.runtime.build import resolve_workspace

    print_listing(state_paths(workspace, state_dir), resolve_workspace(workspace), as_json)


def _render_block(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block["text"])
    if kind == "tool_use":
        return f"[tool_use {block['name']} {json.dumps(block.get('input'), ensure_ascii=False)}]"
    if kind == "tool_result":
        content = block.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        flag = " error" if block.get("is_error") else ""
        return f"[tool_result{flag}] {text[:500]}"
    return f"[{kind}]"


@runtime_checkable
class SessionCost(Protocol):
    """The port `session_cost` (the cost extension's): a transcript's cost report."""

    def report(self, path: Path) -> list[str]: ...


def _show_cost(path: Path, workspace: Path) -> None:
    from agent_cli.core.errors import UsageError
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.settings.schema import Settings
    from agent_cli.runtime.extensions.contract import ExtensionContext
    from agent_cli.runtime.extensions.discovery import Asking
    from agent_cli.runtime.extensions.registry import BUILTINS, discover

    asleep = [d for d in BUILTINS if "session_cost" in d.ports]  # the port wakes its own
    found = discover(path=(), builtins=asleep, asking=Asking(workspace=workspace))
    paths = Paths(path.parent)
    context = lambda n: ExtensionContext(n, workspace, paths, Settings(), "")  # noqa: E731
    made = found.port("session_cost", context)
    if not isinstance(made, SessionCost):
        raise UsageError("--cost: no cost report here (the cost extension is not loaded)")
    for line in made.report(path):
        typer.echo(line)


@sessions_app.command("show")
@guarded
def show_session(
    session_id: str = typer.Argument(..., help="Session id or a unique prefix."),
    cost: bool = typer.Option(
        False, "--cost", help="Its calls per agent: tokens, hit ratio, cost; misses and cause."
    ),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """Show one session: its live context, todo list and totals."""
    from agent_cli.core.history import blocks_of
    from agent_cli.session.resume import find_session, fold

    path = find_session(state_paths(workspace, state_dir), session_id)
    if cost:
        _show_cost(path, workspace)
        return
    state = fold(path)
    typer.echo(f"session {state.id}  model {state.model}  started {state.started}")
    typer.echo(
        f"calls {state.calls}  compactions {state.compactions}  usage {state.usage.model_dump()}"
    )
    if state.todos:
        typer.echo("todos:")
        for item in state.todos:
            mark = {"completed": "[x]", "in_progress": "[>]"}.get(item.status, "[ ]")
            typer.echo(f"  {mark} {item.content}")
    for message in state.messages:
        typer.echo(f"--- {message['role']}")
        for block in blocks_of(message):
            typer.echo(_render_block(block))
