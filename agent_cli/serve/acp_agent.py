"""`agent acp`: the Agent Client Protocol's agent side, one Runtime per editor session.

A prompt runs in a task of its own, so `session/cancel` stops it as Ctrl-C does (the loop
answers every call) and the prompt's reply is the stop reason `cancelled`."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PromptCapabilities,
    PromptResponse,
    RequestPermissionResponse,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    StopReason,
    ToolCallStart,
    ToolCallUpdate,
)

from agent_cli.core.errors import AgentError
from agent_cli.core.events import ErrorEvent, ToolStart, TurnEnd
from agent_cli.core.messages import Block
from agent_cli.core.options import PERMISSION_MODES, Options
from agent_cli.runtime.runtime import Runtime
from agent_cli.serve.acp_history import replay
from agent_cli.serve.acp_permission import AcpApprover
from agent_cli.serve.acp_prompt import PromptBlock, content
from agent_cli.serve.acp_updates import ToolCards
from agent_cli.serve.defaults import Defaults

log = logging.getLogger(__name__)

MODE_NAMES = {
    "default": ("Default", "Edits and commands ask first."),
    "accept-edits": ("Accept edits", "File edits run unasked; commands still ask."),
    "plan": ("Plan", "Read-only: the model plans, nothing changes."),
    "bypass": ("Bypass", "Nothing asks (deny rules still hold)."),
}
STOPS: dict[str, StopReason] = {
    "done": "end_turn",
    "max_turns": "max_turn_requests",
    "interrupted": "cancelled",
}


def modes(current: str) -> SessionModeState:
    listed = [SessionMode(id=m, name=n, description=d) for m, (n, d) in MODE_NAMES.items()]
    return SessionModeState(current_mode_id=current, available_modes=listed)


@dataclass
class AcpSession:
    runtime: Runtime
    cards: ToolCards
    approver: AcpApprover
    task: asyncio.Task[tuple[StopReason, str | None]] | None = None


class AcpAgent:
    def __init__(self, conn: Client, defaults: Defaults) -> None:
        self.conn, self.defaults = conn, defaults
        self.sessions: dict[str, AcpSession] = {}
        self.client = ClientCapabilities()

    def on_connect(self, conn: Client) -> None:
        self.conn = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        from agent_cli import __version__

        self.client = client_capabilities or ClientCapabilities()
        prompts = PromptCapabilities(image=True, embedded_context=True)
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(load_session=True, prompt_capabilities=prompts),
            agent_info=Implementation(name="agent", title="agent", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        return AuthenticateResponse()  # the API key comes from the environment, as for `agent`

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        session = await self._open(cwd, None, mcp_servers)
        runtime = session.runtime
        return NewSessionResponse(
            session_id=runtime.session.id, modes=modes(runtime.permission_mode)
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse | None:
        session = await self._open(cwd, session_id, mcp_servers)
        runtime = session.runtime
        if runtime.restored is not None:
            for update in replay(runtime.restored, runtime.options.workspace):
                await self.conn.session_update(session_id=runtime.session.id, update=update)
        return LoadSessionResponse(modes=modes(runtime.permission_mode))

    async def set_session_mode(
        self, mode_id: str, session_id: str, **kwargs: Any
    ) -> SetSessionModeResponse | None:
        if mode_id not in PERMISSION_MODES:
            known = ", ".join(PERMISSION_MODES)
            raise RequestError.invalid_params({"modeId": f"{mode_id!r}: not one of {known}"})
        self._session(session_id).runtime.set_permission_mode(mode_id)
        return SetSessionModeResponse()

    async def prompt(
        self, prompt: list[PromptBlock], session_id: str, **kwargs: Any
    ) -> PromptResponse:
        session = self._session(session_id)
        if session.task is not None and not session.task.done():
            raise RequestError.invalid_request({"details": "a prompt of this session is running"})
        text, blocks = content(prompt)
        session.task = asyncio.create_task(self._turn(session, text, blocks))
        try:
            stop, error = await asyncio.shield(session.task)
        except asyncio.CancelledError:  # the connection went away: the turn goes too
            session.runtime.interrupt()
            raise
        if error is not None:
            raise RequestError.internal_error({"details": error})
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.runtime.interrupt()

    async def aclose(self) -> None:
        for session in self.sessions.values():
            session.runtime.interrupt()
            if session.task is not None:
                await asyncio.gather(session.task, return_exceptions=True)
            await session.runtime.aclose()

    # -- inside ------------------------------------------------------------------------------

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": f"{session_id!r}: no such session"})
        return session

    async def _open(self, cwd: str, resume: str | None, servers: list[Any] | None) -> AcpSession:
        from agent_cli.runtime.build import build_runtime, resolve_workspace

        try:
            options = Options(
                workspace=resolve_workspace(Path(cwd)),
                state_dir=self.defaults.state_dir,
                model=self.defaults.model,
                permission_mode=self.defaults.permission_mode,
                resume=resume,
                quiet=True,
            )
            cards = ToolCards(options.workspace)
            holder: list[str] = []
            approver = AcpApprover(cards, lambda card, offered: self._ask(holder, card, offered))
            runtime = build_runtime(options, approver, quiet=True)
        except AgentError as e:
            raise RequestError.invalid_params({"details": str(e)}) from None
        holder.append(runtime.session.id)
        session = AcpSession(runtime, cards, approver)
        self.sessions[runtime.session.id] = session
        log.info("acp session %s in %s (resumed: %s)", runtime.session.id, cwd, bool(resume))
        if servers:  # not yet started: only the configured (and trusted) servers are
            log.info("acp: the client's MCP servers are ignored: %s", [s.name for s in servers])
        return session

    async def _ask(
        self, holder: list[str], card: ToolCallUpdate, offered: list[PermissionOption]
    ) -> RequestPermissionResponse:
        return await self.conn.request_permission(
            session_id=holder[0], tool_call=card, options=offered
        )

    async def _turn(
        self, session: AcpSession, text: str, blocks: list[Block]
    ) -> tuple[StopReason, str | None]:
        sid = session.runtime.session.id
        stop: StopReason = "end_turn"
        error: str | None = None
        try:
            async for event in session.runtime.turn(text, blocks):
                if isinstance(event, ErrorEvent):
                    error = event.message
                elif isinstance(event, TurnEnd):
                    stop = STOPS.get(event.stop, "end_turn")
                    error = error if event.stop == "error" else None
                update = session.cards.update(event)
                if update is not None:
                    await self.conn.session_update(session_id=sid, update=update)
                if isinstance(event, ToolStart) and isinstance(update, ToolCallStart):
                    session.approver.mark_shown(event.id)
        except asyncio.CancelledError:  # session/cancel: the loop has answered every call
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            for card in session.cards.abandon():
                await self.conn.session_update(session_id=sid, update=card)
            return "cancelled", None
        return stop, error
