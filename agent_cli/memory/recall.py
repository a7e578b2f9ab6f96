"""recall: search episodes (and notes, through a pluggable searcher) — read-only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pydantic import Field, model_validator

from agent_cli.core.tool_contract import Tool, ToolContext, ToolInput, ToolResult

if TYPE_CHECKING:
    from agent_cli.memory.episode import Episode
    from agent_cli.memory.episode_store import EpisodeStore


class RecallInput(ToolInput):
    query: str | None = Field(
        default=None, description="Keywords to search titles, problems, decisions, open issues."
    )
    file: str | None = Field(
        default=None, description="A file path: the earlier work that changed or cited it."
    )
    limit: int = Field(default=5, ge=1, le=20, description="Hits of each kind (default 5).")

    @model_validator(mode="after")
    def _something(self) -> RecallInput:
        if not (self.query or "").strip() and not (self.file or "").strip():
            raise ValueError("give a query, a file, or both")
        return self


class NotesSearch(Protocol):
    """Searches the notes index; returns rendered hits, each naming its note id."""

    def __call__(
        self, ctx: ToolContext, query: str | None, file: str | None, limit: int
    ) -> list[str]: ...


def lazy_notes_search(
    ctx: ToolContext, query: str | None, file: str | None, limit: int
) -> list[str]:
    """The notes index's search (memory/recall_notes.py), imported at the first recall."""
    from agent_cli.memory.recall_notes import search_notes

    return search_notes(ctx, query, file, limit)


def find_episodes(store: EpisodeStore, args: RecallInput, workspace: str) -> list[Episode]:
    """Episodes matching both the file and the query first, then either one."""
    from agent_cli.memory.episode import relative_path

    by_file = (
        store.by_file(relative_path(args.file, None), workspace, args.limit) if args.file else []
    )
    by_text = store.search(args.query, workspace, args.limit) if args.query else []
    text_ids = {e.id for e in by_text}
    both = [e for e in by_file if e.id in text_ids]
    out: dict[str, Episode] = {}
    for episode in both + by_file + by_text:
        out.setdefault(episode.id, episode)
    return list(out.values())[: args.limit]


class Recall(Tool[RecallInput]):
    name = "recall"
    input_model = RecallInput
    read_only = True

    def __init__(self, notes: NotesSearch | None = None) -> None:
        self.notes = notes

    def describe_call(self, args: RecallInput) -> str:
        what = " ".join(x for x in (args.query, args.file) if x)
        return f"recall {what}"

    async def run(self, args: RecallInput, ctx: ToolContext) -> ToolResult:
        from agent_cli.memory import render  # the first search imports the index's code
        from agent_cli.memory.episode import relative_path
        from agent_cli.memory.episode_store import EpisodeStore

        episodes: list[Episode] = []
        if ctx.paths.index_db.exists():  # a read never creates the index
            store = EpisodeStore(ctx.paths.index_db)
            file_args = args.model_copy(
                update={"file": relative_path(args.file, ctx.workspace) if args.file else None}
            )
            episodes = find_episodes(store, file_args, str(ctx.workspace))
        notes = self.notes(ctx, args.query, args.file, args.limit) if self.notes else []
        parts = []
        if episodes:
            parts.append(f"Episodes ({len(episodes)}):\n" + "\n\n".join(map(render.hit, episodes)))
        if notes:
            parts.append(f"Notes ({len(notes)}):\n" + "\n\n".join(notes))
        hits = len(episodes) + len(notes)
        summary = f"{self.describe_call(args)} ({hits} hits)"
        if not parts:
            return ToolResult("Nothing in memory matches that.", summary=summary)
        return ToolResult("\n\n".join(parts), summary=summary)
