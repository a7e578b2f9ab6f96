"""/fork in `agent chat`: the conversation goes on in a new session with this one's history;
this one stays as it is, resumable by its id."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_cli.ui.slash.host import Host

HELP = {"/fork": "go on in a new session with this conversation (this one stays resumable)"}


def fork(host: Host, arg: str) -> None:
    if getattr(host, "busy", False):
        host.say("A turn is running: wait for it or stop it with Ctrl-C.", "yellow")
        return
    old = host.runtime.session.id
    host.runtime.fork()
    new = host.runtime.session.id
    # the same conversation goes on: the scrollback and the panel already show it
    host.say(f"Forked session {old} into {new} (the previous one: --resume {old}).")
