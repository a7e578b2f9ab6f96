"""The Runtime: one agent session as every front end drives it (`agent run`, `agent chat`, and
whatever comes later). Built by the composition root (`build.build_runtime`) alone.

It owns the session, the lazily made model client, the agent and what a resumed session
restored. Front ends call `submit()` (or `turn()` for text taken as it is), `compact()`,
`interrupt()`, `switch()`, `fork()` and `aclose()`; reach the objects it holds (`work`: the
steering inbox and notifications; `tuning`: model, thinking, context; `memory`: episodes;
`planning`: plan mode's way back and the front end's dialogs); and reach the extensions through
`extension(name)` (a run-wide service, e.g. checkpoints' rewinds) and `port(name)`. They render
the events: during a turn they come out of `turn()`; what happens between turns (usage and
warnings of background episode writing) reaches `listeners`.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from agent_cli.core.diagnosing import Diagnoser
from agent_cli.core.events import Event
from agent_cli.core.messages import Block
from agent_cli.core.options import Options, PermissionMode
from agent_cli.loop.shown import record_notice, record_shown
from agent_cli.policy.approval import Approver
from agent_cli.runtime.extensions.contract import ExtensionContext, PanelPart, StatusPart
from agent_cli.runtime.planning import Planning
from agent_cli.runtime.ports import Assembly, Attach, Composer
from agent_cli.runtime.remembering import Remembering
from agent_cli.runtime.tuning import Tuning
from agent_cli.runtime.work import LongWork
from agent_cli.session.state import Session

if TYPE_CHECKING:
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.settings.schema import Settings
    from agent_cli.loop.agent import Agent
    from agent_cli.memory.manager import EpisodeManager
    from agent_cli.model.call_log import CallLog
    from agent_cli.model.client import ModelClient
    from agent_cli.session.resume import RestoredSession

SDK_MODULE = "agent_cli.model.anthropic"


def preload_sdk() -> threading.Thread | None:
    """Import the SDK in the background (`agent chat` draws its prompt meanwhile); None where
    it is in already (a child of the warm process): no thread for nothing."""
    if SDK_MODULE in sys.modules:
        return None
    thread = threading.Thread(target=importlib.import_module, args=(SDK_MODULE,), daemon=True)
    thread.start()
    return thread


class Runtime:
    def __init__(
        self,
        wiring: Composer,
        options: Options,
        session: Session,
        restored: RestoredSession | None,
        approver: Approver | None = None,
    ) -> None:
        self.wiring = wiring
        self.approver = approver
        self.listeners: list[Callable[[Event], None]] = []
        self._client: ModelClient | None = None
        self._assembly: Assembly | None = None
        self.memory = Remembering(lambda: self.session, self._memory)  # episodic memory
        self._turn_task: asyncio.Task[object] | None = None
        self._ending: list[tuple[Callable[[str], Awaitable[None]], str]] = []
        self.work = LongWork(lambda: self.session, lambda: self.options, self._turn_running)
        self.tuning = Tuning(self, lambda: self._assembly)  # the model, thinking, the context
        self.planning = Planning(self)  # plan mode's way back, the front end's dialogs
        self._adopt(session, restored, options)

    @property
    def settings(self) -> Settings:
        return self.wiring.settings

    @property
    def paths(self) -> Paths:
        return self.wiring.paths

    @property
    def call_log(self) -> CallLog:
        return self.wiring.call_log

    @property
    def permission_mode(self) -> str:
        return self.options.permission_mode or self.settings.permissions.mode

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """From the next tool call on (what the permission check reads), also in the sessions
        /clear and /resume open; entering plan remembers the mode to go back to."""
        current = self.session.settings.permissions.mode
        if mode == "plan" and current != "plan":
            self.planning.mode_before_plan = current
        self.session.settings.permissions.mode = mode
        self.options.permission_mode = mode

    # -- sessions ------------------------------------------------------------------------------

    def _adopt(self, session: Session, restored: RestoredSession | None, options: Options) -> None:
        self.session, self.restored = session, restored
        earlier = (restored.calls, restored.judged) if restored is not None else (0, [])
        self.call_log.calls.adopt(*earlier, sink=session.record_call)
        self.options = replace(options, resume=None, continue_last=False, fork_session=False)
        if self._assembly is not None:  # the session before a switch ends (SessionEnd hooks)
            self._ending += [(end, "clear") for end in self._assembly.on_end]
        self._assembly = None
        session.tool_ctx.inbox.listeners.extend(self.work.listeners)  # they follow the session
        self.planning.wire(session)  # the front end's dialogs, if it has any
        checks = self.port("after_edit")  # language servers: what an edit broke
        session.tool_ctx.diagnoser = checks if isinstance(checks, Diagnoser) else None

    def switch(self, resume: str | None = None, fork: bool = False) -> None:
        """A new session (None), or the one `resume` names (UsageError if none matches);
        `fork`: a new session with its history. This one's lock is let go first (resuming it
        again is no stranger's resume) and taken back if no session opens."""
        options = replace(self.options, resume=resume, continue_last=False, fork_session=fork)
        self.session.release()
        try:
            opened = self.wiring.open_session(options)
        except BaseException:
            self.session.hold_again()
            raise
        self._adopt(*opened, options)

    def fork(self) -> str:
        """/fork: go on in a new session with this one's history; this one stays resumable."""
        self.switch(self.session.id, fork=True)
        return self.restored.forked if self.restored else ""

    # -- the agent -----------------------------------------------------------------------------

    def start_servers(self, eager: bool = True) -> None:
        """Start the run's servers (an extension's port "run_start": MCP servers) in the
        background: the REPL calls it as the prompt is drawn; otherwise once the first request
        is on the wire (importing `mcp` takes a second of CPU, which must not compete with
        building that request; a server could not serve it anyway). Nothing ever waits for
        them: a server is offered from the first request after it is ready. `eager`: False
        makes them ready to start when first asked for tools."""
        start = self.port("run_start")
        if callable(start):
            start(eager)

    async def agent(self) -> Agent:
        if self._client is None:
            await asyncio.to_thread(importlib.import_module, SDK_MODULE)
            self._client = self.wiring.make_client(on_sent=self.start_servers)
        self.start_servers(eager=False)
        if self._assembly is None:
            self._assembly = self.wiring.assemble(
                self.session,
                self._client,
                self.options,
                self.approver,
                self.publish,
                self.extension,
            )
            self.memory.adopt(self._assembly.memory)
        return self._assembly.agent

    def extension(self, name: str) -> object | None:
        """The run-wide service of extension `name` (made when first asked for); None when no
        such extension is there. Callers check the type they expect (`isinstance`)."""
        return self.wiring.extensions.service(name, self)

    def port(self, name: str) -> object | None:
        """The port `name` for the current session, made by the first loaded extension that
        provides it (none is woken for it); None when none does. Callers check its type."""
        for item in self.wiring.extensions.loaded:
            if name in item.extension.ports:
                return item.extension.ports[name](self._context(item.extension.name))
        return None

    @overload
    def parts(self, kind: Literal["panel_parts"]) -> list[PanelPart]: ...
    @overload
    def parts(self, kind: Literal["status_parts"]) -> list[StatusPart]: ...
    def parts(self, kind: str) -> list[Any]:
        """The loaded extensions' parts of the chat screen, in their order: the side panel's
        (for the current session) or the status bar's."""
        return list(self.wiring.extensions.made(kind, self._context))

    def _context(self, extension: str) -> ExtensionContext:
        session = self.session
        return ExtensionContext(
            extension, self.options.workspace, session.paths, self.settings, session.id,
            self.extension, self.port,
        )  # fmt: skip

    async def tool_names(self) -> list[str]:
        """The tools the model is offered now (MCP servers' as they are ready)."""
        return (await self.agent()).registry.names()

    async def _memory(self) -> EpisodeManager:
        await self.agent()
        assert self._assembly is not None
        return self._assembly.memory

    def publish(self, event: Event) -> None:
        """Usage of every model call and background warnings: into the running turn's events
        (in order), or to the listeners between turns."""
        if self._turn_task is not None and self._assembly is not None:
            self._assembly.agent.emit(event)
            return
        for listener in self.listeners:
            listener(event)

    # -- what front ends call ------------------------------------------------------------------

    def submit(self, text: str) -> AsyncIterator[Event]:
        """What the user typed: `!command` runs in the shell (through the permission gate, into
        the conversation); anything else is a turn with its `@server:uri` resources and `@path`
        files attached (read as read_file reads them: capped, gated, remembered as read)."""
        return self._turns(text, None, typed=True)

    async def notice_turn(self, text: str) -> AsyncIterator[Event]:
        """A turn the agent starts itself (a job ended while the chat was idle): `text` is its
        message, kept as the agent's, never redrawn as typed by the user."""
        record_notice((await self.agent()).session, "wake", text)
        async for event in self._turns(text, None):
            yield event

    def turn(self, text: str, content: str | list[Block] | None = None) -> AsyncIterator[Event]:
        """One user turn taken as written (`agent run`) through the extensions' turn wrappers
        (a checkpoint of the workspace), and the turns its hooks follow it with (a goal's).
        `content`: what the model is sent when it is more than `text`."""
        return self._turns(text, content)

    async def _turns(
        self, text: str, content: str | list[Block] | None, typed: bool = False
    ) -> AsyncIterator[Event]:
        """The one generator between the loop and the front end (each layer costs every event):
        each turn is the agent's (its wrappers' checkpoint too), its follow-up a turn of its own."""
        agent = await self.agent()
        if typed:  # what the user typed in a chat
            from agent_cli.loop.user_input import user_shell, with_files

            stripped = text.strip()
            if stripped.startswith("!") and (command := stripped[1:].strip()):
                yield await user_shell(agent, command)
                return
            attach = self.port("attachments")  # `@server:uri`: an MCP server's resources
            request = await cast(Attach, attach)(text) if callable(attach) else text
            content = await with_files(agent, text, request, self.options.workspace)
        message = text if content is None else content
        with self._running():
            while True:
                async for event in agent.run_turn(message):
                    yield event
                followed = await agent.follow_up()
                for event in followed.events if followed else []:
                    record_shown(agent.session, event)  # a goal's check: drawn again on resume
                    yield event
                if followed is None or followed.message is None:
                    return
                message = followed.message
                if isinstance(message, str):  # the hooks' words (a goal's feedback), not typed
                    record_notice(agent.session, "follow-up", message)

    async def compact(self, focus: str | None) -> AsyncIterator[Event]:
        """Compaction now, between turns. Yields nothing when nothing was compacted."""
        agent = await self.agent()
        if agent.compactor is None:
            return
        with self._running():
            async for event in agent.compact_now(focus):
                yield event

    @contextmanager
    def _running(self) -> Iterator[None]:
        """A turn (or a compaction) runs in the current task: `interrupt()` cancels it."""
        self._turn_task = asyncio.current_task()
        try:
            yield
        finally:
            self._turn_task = None

    def _turn_running(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    def interrupt(self) -> None:
        """Stop the running turn: its tools are killed and every call gets a result."""
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()

    async def aclose(self, wait: bool = True) -> None:
        """Before exit: background episode work is waited for (bounded by
        `background_wait_s`; not at all with `wait=False`), then the client closes."""
        if self._assembly is not None:
            self._ending += [(end, "exit") for end in self._assembly.on_end]
            self._assembly.on_end = []
        for end, reason in self._ending:
            await end(reason)
        self._ending = []
        await self.wiring.aclose()  # the extensions' services: jobs, language and MCP servers
        from agent_cli.core.outside.watch import end_watchers  # not before the first request

        await end_watchers()
        if self._client is not None:
            if wait:
                await self.memory.finish()
            await self._client.close()
            self._client = None
        self.session.release()  # nothing more is written: another run may resume it
        self.call_log.close()  # a process that goes on (the warm one's rehearsal, a server's
        # next session) keeps no descriptor of a run that has ended
