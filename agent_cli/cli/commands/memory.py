"""`agent memory list|show|search`: the episodes of this workspace, without importing the SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded, state_paths
from agent_cli.core.errors import UsageError

if TYPE_CHECKING:
    from agent_cli.memory.episode import Episode
    from agent_cli.memory.episode_store import EpisodeStore

memory_app = typer.Typer(no_args_is_help=False, add_completion=False, rich_markup_mode=None)

AS_JSON = typer.Option(False, "--json", help="One JSON array.")
LIMIT = typer.Option(50, "--limit", "-n", min=1, help="At most this many episodes.")


def _store(workspace: Path, state_dir: Path | None) -> tuple[EpisodeStore | None, str]:
    """The store and the workspace key; None when nothing was ever indexed (reads create
    nothing)."""
    from agent_cli.memory.episode_store import EpisodeStore
    from agent_cli.runtime.build import resolve_workspace

    root = resolve_workspace(workspace)
    paths = state_paths(root, state_dir)
    if not paths.index_db.exists():
        return None, str(root)
    return EpisodeStore(paths.index_db), str(root)


def _print(episodes: list[Episode], as_json: bool, empty: str) -> None:
    from agent_cli.memory import render

    if as_json:
        typer.echo(json.dumps([e.summary() for e in episodes], ensure_ascii=False))
        return
    if not episodes:
        typer.echo(empty)
    for episode in episodes:
        typer.echo(render.line(episode))


@memory_app.callback(invoke_without_command=True)
def memory_default(
    ctx: typer.Context,
    as_json: bool = AS_JSON,
    limit: int = LIMIT,
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    if ctx.invoked_subcommand is None:
        list_episodes(as_json=as_json, limit=limit, workspace=workspace, state_dir=state_dir)


@memory_app.command("list")
@guarded
def list_episodes(
    as_json: bool = AS_JSON,
    limit: int = LIMIT,
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """List the episodes of this workspace, newest first."""
    store, root = _store(workspace, state_dir)
    episodes = store.recent(root, limit) if store else []
    _print(episodes, as_json, "No episodes yet.")


@memory_app.command("search")
@guarded
def search_episodes(
    query: str = typer.Argument(..., help="Keywords (titles, problems, decisions, open issues)."),
    as_json: bool = AS_JSON,
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="At most this many episodes."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """Search the episodes of this workspace, best match first."""
    if not query.strip():
        raise UsageError("The search query is empty.")
    store, root = _store(workspace, state_dir)
    episodes = store.search(query, root, limit) if store else []
    _print(episodes, as_json, f"No episode matches '{query}'.")


@memory_app.command("show")
@guarded
def show_episode(
    episode_id: str = typer.Argument(..., help="Episode id or a unique prefix."),
    as_json: bool = typer.Option(False, "--json", help="The whole episode as JSON."),
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """Show one episode: every field, what it builds on and what builds on it."""
    from agent_cli.memory import render

    store, _ = _store(workspace, state_dir)
    matches = store.find(episode_id.strip()) if store and episode_id.strip() else []
    if not matches:
        raise UsageError(f"No episode matches '{episode_id}'. List them with: agent memory list")
    if len(matches) > 1:
        names = ", ".join(e.id for e in matches[:5])
        raise UsageError(f"'{episode_id}' matches several episodes ({names}); give more of it.")
    episode = matches[0]
    assert store is not None
    if as_json:
        typer.echo(episode.model_dump_json())
        return
    typer.echo(render.full(episode, store.chain(episode.id), store.dependents(episode.id)))
