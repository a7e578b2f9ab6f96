"""A session opened: new, or the one the options resume, its transcript folded here once.
What resumes and forks a session is imported only when one is resumed."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.core.diagnosing import Diagnoser
from agent_cli.core.files.logs import secrets_from_env
from agent_cli.core.files.paths import Paths
from agent_cli.core.options import Options
from agent_cli.core.settings.schema import Settings
from agent_cli.core.tool_contract import ToolContext
from agent_cli.policy.run_later import run_later
from agent_cli.session.owner import SessionOwner, holder_pid, take_session
from agent_cli.session.state import Session, new_session_id
from agent_cli.session.transcript import SessionRecord, TranscriptWriter
from agent_cli.todo.tracker import TodoTracker

if TYPE_CHECKING:
    from agent_cli.session.resume import RestoredSession

log = logging.getLogger(__name__)


def _target(options: Options, paths: Paths) -> Path | None:
    if options.resume:
        from agent_cli.session.resume import find_session, warn_other_workspace

        found = find_session(paths, options.resume)
        warn_other_workspace(found, options.workspace)
        return found
    if options.continue_last:
        from agent_cli.session.resume import latest_session

        return latest_session(paths, options.workspace)
    return None


def restore_target(
    options: Options, paths: Paths, model: str = ""
) -> tuple[RestoredSession | None, SessionOwner | None]:
    """The session `options` resume, folded once its lock is held here. One another live
    process holds is forked (so is any with `--fork-session`): the run goes on in a new
    session with the same history, and `RestoredSession.forked` says why."""
    path = _target(options, paths)
    if path is None:
        return None, None
    from agent_cli.session.fork import fork_session
    from agent_cli.session.resume import fold

    owner = take_session(paths, path.stem)
    live = owner is None  # another live run holds it: its current turn is not ours to copy
    if owner is not None and not options.fork_session:
        return fold(path), owner
    if owner is not None:
        owner.release()
    forked, owner = fork_session(paths, path, str(options.workspace), model, live)
    restored = fold(forked)
    if options.fork_session:
        restored.forked = f"Forked session {path.stem} into {forked.stem}."
    else:
        pid = holder_pid(paths, path.stem)
        by = f"another run (pid {pid})" if pid else "another run"
        restored.forked = (
            f"Session {path.stem} is in use by {by}: continuing in a fork of it, session "
            f"{forked.stem}."
        )
    log.info("%s", restored.forked)
    return restored, owner


def open_session(
    options: Options, settings: Settings, paths: Paths, diagnoser: Diagnoser | None = None
) -> tuple[Session, RestoredSession | None]:
    """A new session, or the one `options` resumes: its transcript is folded here, once.
    `diagnoser`: the run's language servers, checking the session's edits."""
    secrets = secrets_from_env()
    restored, owner = restore_target(options, paths, settings.model)
    session_id = restored.id if restored else new_session_id()
    if owner is None:
        owner = take_session(paths, session_id)  # a new id: nobody else's
    ctx = ToolContext(
        workspace=options.workspace,
        paths=paths,
        session_id=session_id,
        settings=settings,
        secrets=secrets,
        diagnoser=diagnoser,
        extra_roots=list(options.add_dirs),
        run_later=run_later(settings, options.workspace),
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
        owner=owner,
    )
    session.view_providers.append(session.todos.view)
    if restored is None:
        session.record(
            SessionRecord(
                id=session_id,
                workspace=str(options.workspace),
                model=settings.model,
                worktree=options.worktree,
            )
        )
    else:
        session.messages = restored.messages
        session.title = restored.title
        for model, usage in restored.usage_by_model.items():  # the cost is priced again
            session.add_usage(usage, model)
        session.todos.restore([item.as_dict() for item in restored.todos])
    return session, restored
