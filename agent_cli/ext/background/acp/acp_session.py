"""A background session over the Agent Client Protocol, on its own socket (answering.serve
hands it every connection that begins with JSON-RPC): how `agent attach` and an editor attach.

The session drives its own turn, so a client does not start one: it `session/load`s the
session (its id is the record's `session_id`, `agent ps --json`): the conversation so far is
replayed as `agent acp` replays a resumed one, then every update of the live turn follows as a
`session/update`, and each approval the session waits on (held, or asked later) comes as a
`session/request_permission` to every attached client: the first answer wins, the others'
are ignored. A `session/prompt` is steering: the running turn reads it at its next tool
boundary (an idle session takes it as its next prompt); its response comes at once.
An editor that only makes sessions gets this one from `session/new` (its history follows the
response). `session/cancel` is ignored (`agent stop` ends a background session).
A question or a plan it waits on goes out as the notification `_agent/waiting` (what
`{"op": "pending"}` lists of it, with its `key`) and is answered by `_agent/answer` (the
line op's fields and the `key`). `agent attach NAME --acp` carries an editor's stdio to the
socket (acp_bridge.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any, cast

from acp import PROTOCOL_VERSION, RequestError, helpers
from acp.agent.connection import AgentSideConnection
from acp.interfaces import Agent, Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
)

from agent_cli.core.events import ErrorEvent, Event, Steered, TurnEnd
from agent_cli.ext.background.acp.acp_events import decide, history, waiting_params, wants_events
from agent_cli.ext.background.acp.attach_history import drawn, wanted
from agent_cli.ext.background.acp.wire import ANSWER, TURN_END, WAITING, ExtNote, relayed
from agent_cli.ext.background.answering import Held
from agent_cli.serve.acp_agent import modes
from agent_cli.serve.acp_history import Replayed, replay
from agent_cli.serve.acp_permission import card, decision, options
from agent_cli.serve.acp_prompt import PromptBlock, content
from agent_cli.serve.acp_updates import ToolCards, Update
from agent_cli.session.resume import RestoredSession

if TYPE_CHECKING:
    from agent_cli.ext.background.acp.acp_hub import Hub

log = logging.getLogger(__name__)


Item = Update | Replayed | ExtNote | Held | asyncio.Event | None  # what goes out, in order


def _more(event: Event) -> list[Update | Replayed | ExtNote]:
    """What agent acp's cards leave out that an attached client should see: the steering
    the model now reads (the user's words), an error, the turn's end."""
    if isinstance(event, Steered):
        return [helpers.update_user_message_text(text) for text in event.texts]
    if isinstance(event, ErrorEvent):
        return [helpers.update_agent_message_text(f"✗ {event.message}")]
    if isinstance(event, TurnEnd):
        return [ExtNote(TURN_END, {"stop": event.stop})]
    return []


def live(hub: Hub, event: Event) -> list[Update | Replayed | ExtNote]:
    """`event` as what attached clients are sent."""
    assert hub.cards is not None  # made as the first client joined
    update = hub.cards.update(event)  # its open calls kept while anyone is attached
    return [update] if update is not None else _more(event)


def joined(hub: Hub) -> ToolCards:
    """The first client joins: the calls open now get their cards (their edits' files as
    they are before the call runs)."""
    cards = ToolCards(hub.runtime.options.workspace)
    for started in hub.open.values():
        cards.start(started)
    return cards


async def serve_client(
    hub: Hub, first: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """One ACP client, until it goes."""
    inner, _pump = relayed(first, reader)
    hub.writers.add(writer)
    attached: list[Attached] = []

    def make(conn: Client) -> Agent:
        attached.append(Attached(hub, conn, writer))
        return cast(Agent, attached[-1])

    conn = AgentSideConnection(make, writer, inner, listening=False)
    try:
        await conn.listen()
    finally:
        hub.writers.discard(writer)
        for client in attached:
            client.leave()
        with contextlib.suppress(Exception):
            await conn.close()


class Attached:
    """The agent side of one attached client."""

    def __init__(self, hub: Hub, conn: Client, writer: asyncio.StreamWriter) -> None:
        self.hub, self.conn, self.writer = hub, conn, writer
        self.queue: asyncio.Queue[Item] = asyncio.Queue()
        self.tasks: set[asyncio.Task[None]] = set()
        self.pump: asyncio.Task[None] | None = None
        self.events = False  # it asked for the session's own events (acp_events.py)
        self.joined_at: dict[str, Any] = {}  # what its history is drawn from
        self.draw: dict[str, Any] | None = None  # its terminal, to draw the history for

    @property
    def sid(self) -> str:
        return self.hub.runtime.session.id

    def spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        from agent_cli import __version__

        self.events = wants_events(client_capabilities)
        self.draw = wanted(client_capabilities.field_meta if client_capabilities else None)
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(load_session=True),
            agent_info=Implementation(name="agent", title="agent", version=__version__),
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        """An editor that only makes sessions (a new thread) gets this one: its response
        goes out before the replay (the pump runs once this handler's task yields, after
        the SDK has queued the response)."""
        self._join()
        return NewSessionResponse(
            session_id=self.sid, modes=modes(self.hub.runtime.permission_mode)
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        """Its history, then it is live: the load answered once the history has gone out."""
        if session_id != self.sid:
            raise RequestError.invalid_params({"sessionId": f"{session_id!r}: not this session"})
        await self._join().wait()
        meta = {"agent/history": self.joined_at} if self.events else None
        return LoadSessionResponse(modes=modes(self.hub.runtime.permission_mode), field_meta=meta)

    def _join(self) -> asyncio.Event:
        """The history queued, then the held approvals, then every live update: nothing is
        awaited between the transcript's read and the joining, so no event falls between."""
        if self.pump is not None:
            raise RequestError.invalid_request({"details": "already attached to this session"})
        runtime = self.hub.runtime
        transcript = runtime.session.transcript
        if self.events:  # it draws the transcript itself, up to here; then the open calls
            self.joined_at = history(runtime)
            if self.draw is not None:  # its terminal's: it writes them before it imports
                lines = drawn(self.joined_at, self.draw, (s.id for s in self.hub.open.values()))
                if lines is not None:
                    self.joined_at["lines"] = lines
            for started in self.hub.open.values():
                self.queue.put_nowait(self.hub.note(started))
        elif transcript is not None and transcript.path.exists():
            told = RestoredSession(id=self.sid, path=transcript.path)
            for update in replay(told, runtime.options.workspace):
                self.queue.put_nowait(update)
        replayed = asyncio.Event()
        self.queue.put_nowait(replayed)
        if not self.hub.clients:
            self.hub.cards = joined(self.hub)
            self.hub.convert = lambda event: live(self.hub, event)
        self.hub.clients.append(self)
        for item in self.hub.waiting.asked:
            self.queue.put_nowait(item)
        self.pump = asyncio.create_task(self._pump())
        return replayed

    async def prompt(
        self, prompt: list[PromptBlock], session_id: str, **kwargs: Any
    ) -> PromptResponse:
        text, _blocks = content(prompt)
        work = self.hub.runtime.work
        if text.strip() and not work.steer(text) and (idle := work.recall_queued()) is not None:
            # no turn reads it: an idle session takes its next prompt from its inbox (as the
            # user's, not this process's own session's, whose answer would come back here)
            from agent_cli.ext.background import mail, registry

            record = registry.read(self.hub.waiting.status.path)
            if record is not None:
                mail.post(record, idle, from_user=True)
        return PromptResponse(stop_reason="end_turn")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """`_agent/answer`: a question or plan of `_agent/waiting` answered, as the socket's
        line op takes it (`key` says which)."""
        if method != ANSWER:
            raise RequestError.method_not_found(f"_{method}")
        if "decision" in params and "key" in params:  # an approval, any of the approver's
            error = decide(self.hub.waiting, params)
        else:
            error = self.hub.waiting.answer(params)
        return {"ok": True} if error is None else {"ok": False, "error": error}

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        log.info("background session %s: session/cancel ignored (agent stop ends it)", self.sid)

    def later(self, item: Held) -> None:
        self.spawn(self._after_card(item))

    async def _after_card(self, item: Held) -> None:
        await self.hub.shown(item)
        self.queue.put_nowait(item)

    async def _pump(self) -> None:
        while True:
            item = await self.queue.get()
            if item is None:  # the session ends (Hub.close): all before it has gone out
                self.writer.close()
                return
            if isinstance(item, asyncio.Event):
                item.set()
            elif isinstance(item, Held):
                await self._ask(item)
            elif isinstance(item, ExtNote):
                await self.conn.ext_notification(item.method, item.params)
            else:
                await self.conn.session_update(session_id=self.sid, update=item)

    async def _ask(self, item: Held) -> None:
        if item.future.done():
            return
        if self.events:  # as `agent chat` asks it, whatever its kind
            await self.conn.ext_notification(WAITING, waiting_params(item))
        elif item.kind == "approval":
            self.spawn(self._permission(item))
        else:  # ACP has no question or plan dialog: ours, an extension
            await self.conn.ext_notification(WAITING, item.shown)

    def _cards(self) -> ToolCards:
        assert self.hub.cards is not None  # made as this client joined
        return self.hub.cards

    async def _permission(self, item: Held) -> None:
        request, call_id = item.asked, item.asked.call_id or f"ask-{id(item)}"
        try:
            answer = await self.conn.request_permission(
                session_id=self.sid,
                tool_call=card(self._cards(), request, call_id),
                options=options(request),
            )
        except Exception as e:  # a client gone: the approval waits on
            log.info("background session %s: a client did not answer: %s", self.sid, e)
            return
        self.hub.waiting.resolve(item, decision(answer))

    def leave(self) -> None:
        if self in self.hub.clients:
            self.hub.clients.remove(self)
        for task in [*self.tasks, *([self.pump] if self.pump else [])]:
            task.cancel()
