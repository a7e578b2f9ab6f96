"""`/context`: where the context goes, by category, and where compaction starts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_cli.ui.render.context_view import context_lines

if TYPE_CHECKING:
    from agent_cli.core.events import Event
    from agent_cli.ui.slash.host import Host

HELP = {"/context": "where the context goes: tokens by category, where compaction starts"}


def context_command(host: Host, arg: str) -> None:
    async def work() -> AsyncIterator[Event]:
        view = await host.runtime.tuning.context_breakdown()  # the agent is built on first use
        host.say("\n".join(context_lines(view)))
        return
        yield  # an async generator without events

    if getattr(host, "busy", False):  # the history is changing under a running turn
        host.say("A turn is running: /context once it ends.", "yellow")
        return
    host.start(work)
