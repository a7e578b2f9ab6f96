"""/undo, /rewind and /diff in `agent chat`: this session's turns taken back (code, conversation
or both) after a question, and what the last turns changed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from agent_cli.checkpoints.git import GitError
from agent_cli.checkpoints.records import Checkpoint
from agent_cli.checkpoints.rewind import open_store, rewind
from agent_cli.checkpoints.store import CheckpointStore
from agent_cli.checkpoints.turn import session_files as count_session_files
from agent_cli.core.events import Event

if TYPE_CHECKING:
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.ui.slash.host import Host

YES_NO = {"y": "yes", "n": "no"}
MODES = {"c": "code", "v": "conversation", "b": "both"}
PICK = 9  # turns offered by the /rewind picker (one key each)
MAX_DIFF_LINES = 400


def _store(host: Host) -> CheckpointStore | None:
    runtime = host.runtime
    store = open_store(runtime.paths, runtime.options.workspace, runtime.settings.checkpoints)
    if store is None:
        host.say(
            "Checkpoints are off (git is not installed, or checkpoints.enabled is false).", "yellow"
        )
    return store


def session_files(runtime: Runtime) -> int | None:
    """The panel's "files changed" of a resumed session; None without checkpoints."""
    store = open_store(runtime.paths, runtime.options.workspace, runtime.settings.checkpoints)
    if store is None:
        return None
    try:
        return count_session_files(store, runtime.session.id)
    except (GitError, OSError):
        return None  # a panel figure is not worth an error at start-up


def _turns(host: Host, store: CheckpointStore) -> list[Checkpoint]:
    turns = store.session_checkpoints(host.runtime.session.id)
    if not turns:
        host.say("No turn of this session to go back to yet.")
    return turns


def _label(checkpoint: Checkpoint) -> str:
    return f"turn {checkpoint.turn} ({checkpoint.prompt!r}, {checkpoint.id})"


async def _changed_since(store: CheckpointStore, checkpoint: Checkpoint) -> list[str]:
    now = await asyncio.to_thread(store.now)
    return [f"{c.status} {c.path}" for c in store.changed(checkpoint.tree, now.tree)]


async def _go_back(host: Host, store: CheckpointStore, target: Checkpoint, mode: str) -> None:
    from agent_cli.session.state import new_session_id

    session = host.runtime.session
    code, conversation = mode in ("code", "both"), mode in ("conversation", "both")
    result = await asyncio.to_thread(
        rewind, store, target, code=code, conversation=conversation,
        session_id=session.id, new_session_id=new_session_id(),
    )  # fmt: skip
    lines = result.report(target)
    if result.new_session is None:
        host.say("\n".join(lines))
        return
    host.runtime.switch(result.new_session)
    host.switched("\n".join(lines[:-1]))  # now in the new session: no "resume it" hint


def _task(host: Host, work: Callable[[], AsyncIterator[Event]]) -> None:
    if getattr(host, "busy", False):
        host.say("A turn is running: wait for it or stop it with Ctrl-C.", "yellow")
        return
    host.start(work)


def undo(host: Host, arg: str) -> None:
    async def work() -> AsyncIterator[Event]:
        store = _store(host)
        turns = _turns(host, store) if store else []
        if store is None or not turns:
            return
        target = turns[-1]
        files = await _changed_since(store, target)
        listing = "\n".join(f"  {f}" for f in files) or "  (no file changed)"
        host.say(
            f"Undo {_label(target)}: the conversation goes back to before it, and these "
            f"files go back:\n{listing}"
        )
        answer = await host.ask("Undo the last turn?  [y]es  [n]o", dict(YES_NO))
        if answer is None:
            host.say(f"No terminal to confirm on: use `agent rewind {target.id}`.", "yellow")
        elif answer != "yes":
            host.say("Nothing undone.")
        else:
            await _go_back(host, store, target, "both")
        return
        yield  # an async generator without events

    _task(host, work)


def rewind_picker(host: Host, arg: str) -> None:
    async def work() -> AsyncIterator[Event]:
        store = _store(host)
        turns = _turns(host, store)[-PICK:] if store else []
        if store is None or not turns:
            return
        keys = {str(n): c.id for n, c in enumerate(reversed(turns), 1)}
        by_id = {c.id: c for c in turns}
        host.say("\n".join(f"  [{k}] back to before {_label(by_id[v])}" for k, v in keys.items()))
        picked = await host.ask("Which turn?  (a number; Esc cancels)", keys)
        if picked not in by_id:
            host.say(
                "Nothing rewound."
                if picked is not None
                else "No terminal to pick on: use `agent checkpoints` and `agent rewind ID`."
            )
            return
        mode = await host.ask("Rewind  [c]ode  con[v]ersation  [b]oth ?", dict(MODES))
        if mode is None or mode not in MODES.values():
            host.say("Nothing rewound.")
            return
        await _go_back(host, store, by_id[picked], mode)
        return
        yield

    _task(host, work)


def diff(host: Host, arg: str) -> None:
    """/diff [N]: what the last N turns (default 1) changed, up to the workspace as it is now."""
    if arg and not (arg.isdigit() and int(arg) > 0):
        host.say("Usage: /diff [N] (N turns back, default 1)", "red")
        return

    async def work() -> AsyncIterator[Event]:
        store = _store(host)
        turns = _turns(host, store) if store else []
        if store is None or not turns:
            return
        target = turns[-min(int(arg or 1), len(turns))]
        now = await asyncio.to_thread(store.now)
        text = store.diff(target.tree, now.tree)
        host.say(
            f"Changes since before {_label(target)}:"
            if text
            else f"Nothing changed since before {_label(target)}."
        )
        _say_diff(host, text)
        return
        yield

    _task(host, work)


def _say_diff(host: Host, text: str) -> None:
    lines = text.rstrip("\n").split("\n") if text else []
    for line in lines[:MAX_DIFF_LINES]:
        style = ""
        if line.startswith(("+++", "---", "diff --git")):
            style = "bold"
        elif line.startswith(("+", "-", "@@")):
            style = {"+": "green", "-": "red", "@": "cyan"}[line[0]]
        host.say(line, style)
    if len(lines) > MAX_DIFF_LINES:
        host.say(f"… {len(lines) - MAX_DIFF_LINES} more lines: agent checkpoints diff ID", "dim")
