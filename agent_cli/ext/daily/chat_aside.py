"""/btw QUESTION: a side question answered from the conversation, without tools; neither the
question nor its answer enters the history. It may be asked while a turn runs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_cli.core.errors import AgentError, UsageError
from agent_cli.ext.daily.reach import daily

if TYPE_CHECKING:
    from agent_cli.core.events import Event
    from agent_cli.ui.slash.host import Host

HELP = {"/btw QUESTION": "a side question, answered without tools and kept out of the history"}
_running: set[asyncio.Task[None]] = set()  # held until done (the loop keeps only weak refs)


def btw(host: Host, arg: str) -> None:
    if not arg:
        raise UsageError("/btw QUESTION: ask something.")
    host.say(f"(btw) {arg}", "dim")
    if host.busy:  # beside the running turn, which keeps the front end's one task
        task = asyncio.get_running_loop().create_task(_answer(host, arg))
        _running.add(task)
        task.add_done_callback(_running.discard)
        return

    async def work() -> AsyncIterator[Event]:
        await _answer(host, arg)
        return
        yield  # an async generator without events

    host.start(work)


async def _answer(host: Host, question: str) -> None:
    try:
        answer = await daily(host).aside(question)
    except AgentError as e:
        host.say(f"✗ /btw: {e}", "red")
        return
    host.say(f"↳ btw: {answer}")
