"""/sessions and /resume in `agent chat`: the recent sessions as `agent sessions list` shows
them (session/listing.py: the same order, message count and fork parentage), this one
marked; /resume switches to one by number, id or a picker."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_cli.core.events import Event
from agent_cli.session.listing import SessionSummary, describe, summaries, tags

if TYPE_CHECKING:
    from agent_cli.ui.slash.host import Host

PICK = 9  # sessions /sessions and the /resume picker offer
HERE = "← this session"
HELP = {
    "/sessions": "recent sessions of this workspace (← marks this one)",
    "/resume ID": "switch to another session (no id: pick one of the recent ones)",
}


def _recent(host: Host) -> list[SessionSummary]:
    """The newest sessions with at least one reply (empty ones are not worth resuming)."""
    return [s for s in summaries(host.runtime.paths) if s.replies][:PICK]


def _row(host: Host, summary: SessionSummary) -> str:
    """One line (the picker's): time, size, prompt, id."""
    here = f"  {HERE}" if summary.id == host.runtime.session.id else ""
    return f"{describe(summary, 40)}  ({summary.id}){here}"


def _entry(host: Host, n: int, summary: SessionSummary) -> str:
    """Two lines, so 80 columns hold them: time, size and prompt; then id, parent, mark."""
    here = [HERE] if summary.id == host.runtime.session.id else []
    second = " · ".join([summary.id, *tags(summary), *here])
    return f"{n:>2} {describe(summary, 45)}\n     {second}"


def sessions(host: Host, arg: str) -> None:
    recent = _recent(host)
    sid = host.runtime.session.id
    if all(s.id != sid for s in recent):
        host.say(f" · this session: {sid} (no reply yet)")
    if recent:
        host.say("\n".join(_entry(host, n, s) for n, s in enumerate(recent, 1)))
        host.say("/resume N or /resume ID switches to one.", "dim")


def resume(host: Host, arg: str) -> None:
    if not arg:
        _resume_picked(host)
        return
    if arg.isdigit() and int(arg) <= PICK:
        recent = _recent(host)
        if not 1 <= int(arg) <= len(recent):
            sessions(host, "")
            return
        arg = recent[int(arg) - 1].id
    _switch(host, arg)


def _switch(host: Host, sid: str) -> None:
    host.runtime.switch(sid)
    restored, now = host.runtime.restored, host.runtime.session.id
    host.switched(restored.forked if restored and restored.forked else f"Resumed session {now}.")


def _resume_picked(host: Host) -> None:
    """/resume alone: a picker of the recent sessions (a numbered list without a terminal)."""
    recent = _recent(host)
    if not recent:
        host.say("No sessions to resume yet.")
        return

    async def work() -> AsyncIterator[Event]:
        picked = await host.pick("Resume which session?", [_row(host, s) for s in recent])
        if picked is None:
            if not getattr(host, "can_pick", False):
                sessions(host, "")
            else:
                host.say("Nothing resumed.", "dim")
            return
        _switch(host, recent[picked].id)
        return
        yield  # an async generator without events

    if getattr(host, "busy", False):
        host.say("A turn is running: wait for it or stop it with Ctrl-C.", "yellow")
        return
    host.start(work)
