"""A session opened: new, or the one the options resume, its transcript folded here once."""

from __future__ import annotations

from agent_cli.core.diagnosing import Diagnoser
from agent_cli.core.files.logs import secrets_from_env
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext
from agent_cli.session.resume import (
    Restored,
    find_session,
    fold,
    latest_session,
    warn_other_workspace,
)
from agent_cli.session.state import Session, new_session_id
from agent_cli.session.transcript import SessionRecord, TranscriptWriter
from agent_cli.todo.tracker import TodoTracker


def restore_target(options: Options, paths: Paths) -> Restored | None:
    if options.resume:
        found = find_session(paths, options.resume)
        warn_other_workspace(found, options.workspace)
        return fold(found)
    if options.continue_last:
        return fold(latest_session(paths, options.workspace))
    return None


def open_session(
    options: Options, settings: Settings, paths: Paths, diagnoser: Diagnoser | None = None
) -> tuple[Session, Restored | None]:
    """A new session, or the one `options` resumes: its transcript is folded here, once.
    `diagnoser`: the run's language servers, checking the session's edits."""
    secrets = secrets_from_env()
    restored = restore_target(options, paths)
    session_id = restored.id if restored else new_session_id()
    ctx = ToolContext(
        workspace=options.workspace,
        paths=paths,
        session_id=session_id,
        settings=settings,
        secrets=secrets,
        diagnoser=diagnoser,
    )
    session = Session(
        id=session_id,
        model=settings.model,
        settings=settings,
        tool_ctx=ctx,
        transcript=TranscriptWriter(
            paths.transcript(session_id), restored.ledger if restored else None
        ),
        todos=TodoTracker(settings.todo.max_items),
    )
    session.view_providers.append(session.todos.view)
    if restored is None:
        session.record(
            SessionRecord(id=session_id, workspace=str(options.workspace), model=settings.model)
        )
    else:
        session.messages = restored.messages
        for model, usage in restored.usage_by_model.items():  # the cost is priced again
            session.add_usage(usage, model)
        session.todos.restore([item.as_dict() for item in restored.todos])
    return session, restored
