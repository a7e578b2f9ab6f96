"""The live side of a background session's ACP (acp_session.py), as cheap as nothing while
nobody is attached: the SDK (its schema alone is ~0.7 s and ~8 MiB to import) is loaded when
the first client connects (child.client), and until then only the open tool calls are kept
(a client joining mid-call gets its card)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agent_cli.core.events import Event, ToolEnd, ToolStart
from agent_cli.ext.background.acp.wire import ANSWERED, EVENT, ExtNote
from agent_cli.ext.background.answering import Held, Waiting

if TYPE_CHECKING:
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.serve.acp_updates import ToolCards

END = None  # queued for a client as the session ends: its connection closes after the rest
SHOWN_WAIT_S = 2.0  # how long a permission waits for its call's card to go out first


class Joined(Protocol):
    """An attached client (acp_session.Attached)."""

    queue: asyncio.Queue[Any]
    writer: asyncio.StreamWriter  # its connection
    events: bool  # it gets the session's own events (acp_events.py), not ACP's updates

    def later(self, item: Held) -> None: ...

    def leave(self) -> None: ...


class Hub:
    """The session's events, to every attached client."""

    def __init__(self, runtime: Runtime, waiting: Waiting) -> None:
        self.runtime, self.waiting = runtime, waiting
        self.cards: ToolCards | None = None  # made as a first client joins
        self.convert: Callable[[Event], list[Any]] | None = None  # an event as clients get it
        self.clients: list[Joined] = []
        self.open: dict[str, ToolStart] = {}  # the calls running
        self.started: dict[str, asyncio.Event] = {}  # call id -> its ToolStart came
        self.writers: set[asyncio.StreamWriter] = set()
        waiting.listeners.append(self.held)

    def event(self, event: Event) -> None:
        if isinstance(event, ToolStart):
            self.open[event.id] = event
            self.started.setdefault(event.id, asyncio.Event()).set()
        elif isinstance(event, ToolEnd):
            self.open.pop(event.id, None)
            self.started.pop(event.id, None)
        if self.clients and self.convert is not None:
            sent = self.convert(event)  # its open calls kept for a client joining later
            note = self.note(event) if any(c.events for c in self.clients) else None
            for client in self.clients:
                for item in [note] if client.events else sent:
                    client.queue.put_nowait(item)

    @staticmethod
    def note(event: Event) -> ExtNote:
        return ExtNote(EVENT, {"event": event.model_dump(mode="json")})

    def held(self, item: Held) -> None:
        item.future.add_done_callback(lambda _: self._answered(item))
        for client in self.clients:
            client.later(item)

    def _answered(self, item: Held) -> None:
        """Whoever answered: the events clients' dialogs of it close."""
        for client in self.clients:
            if client.events:
                client.queue.put_nowait(ExtNote(ANSWERED, {"key": item.shown["key"]}))

    async def shown(self, item: Held) -> None:
        """Its call's card first: an approval is asked after the call's ToolStart."""
        call_id = getattr(item.asked, "call_id", "")
        if call_id:
            with contextlib.suppress(TimeoutError):
                seen = self.started.setdefault(call_id, asyncio.Event())
                await asyncio.wait_for(seen.wait(), SHOWN_WAIT_S)

    def close(self) -> None:
        """The session ends: its clients' connections end with it, each once what was
        queued for it (the turn's last events) has gone out."""
        for client in list(self.clients):
            client.queue.put_nowait(END)
        for writer in self.writers - {c.writer for c in self.clients}:
            writer.close()
