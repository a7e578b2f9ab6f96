"""`agent mcp serve`: the agent as an MCP server over stdio, for other agents. `agent` runs a
prompt in a new session, `agent_reply` continues one; each answers with the final text, the
session id and the run's usage. Progress goes out as the run works; a client's cancellation
stops the run as Ctrl-C does. Nobody can be asked for approval: what would ask is denied with
the reason, as in `agent run`."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from agent_cli.core.errors import AgentError
from agent_cli.core.events import ErrorEvent, Event, ToolEnd, ToolStart, TurnEnd
from agent_cli.core.options import Options, PermissionMode
from agent_cli.runtime.runtime import Runtime
from agent_cli.serve.acp_updates import title
from agent_cli.serve.defaults import Defaults
from agent_cli.serve.mcp_bounds import Refused, client_mode, session_folder, wider
from agent_cli.serve.mcp_wire import serve_stdio

log = logging.getLogger(__name__)

CWD = "The repository: ours (default) or a folder inside it."
MODE = "The server's mode (default) or a narrower one: plan < default < accept-edits < bypass."


class RunAnswer(BaseModel):
    """What a call answers: the shape of `agent run --output-format json`'s result."""

    result: str = Field(description="The final answer of the turn.")
    session_id: str = Field(description="Continue this session with agent_reply.")
    is_error: bool
    error: str | None = None
    num_turns: int = Field(description="Model requests this call made.")
    usage: dict[str, int] = Field(description="The session's tokens so far.")
    cost_usd: float | None = Field(description="The session's estimated cost so far.")


@dataclass
class Sessions:
    """The sessions this server opened, kept open for agent_reply (a session's transcript is
    written by one process only). `workspace`: the server's folder, where sessions open."""

    defaults: Defaults
    workspace: Path = field(default_factory=lambda: Path.cwd().resolve())
    open: dict[str, Runtime] = field(default_factory=dict)
    busy: set[str] = field(default_factory=set)
    _mode: PermissionMode | None = None

    def server_mode(self) -> PermissionMode:
        """What a client may not widen: the server's flag, else its workspace's settings."""
        if self.defaults.permission_mode:
            return self.defaults.permission_mode
        if self._mode is None:
            from agent_cli.runtime.build import load

            options = Options(workspace=self.workspace, state_dir=self.defaults.state_dir)
            self._mode = load(options)[0].permissions.mode
        return self._mode

    def start(
        self, cwd: str | None, mode: PermissionMode | None, model: str | None, resume: str | None
    ) -> Runtime:
        """Refused (a tool error) for a wider mode than the server's or a folder outside its
        workspace."""
        from agent_cli.runtime.build import build_runtime

        ceiling = self.server_mode()
        options = Options(
            workspace=session_folder(self.workspace, cwd),
            state_dir=self.defaults.state_dir,
            model=model or self.defaults.model,
            permission_mode=client_mode(mode, ceiling) or self.defaults.permission_mode,
            resume=resume,
            quiet=True,
            one_shot=True,
        )
        runtime = build_runtime(options, quiet=True)
        if wider(runtime.permission_mode, ceiling):  # a trusted inner folder's own settings
            runtime.set_permission_mode(ceiling)
        self.open[runtime.session.id] = runtime
        return runtime

    def find(self, session_id: str) -> Runtime:
        if session_id in self.open:
            return self.open[session_id]
        for runtime in self.open.values():
            if runtime.session.id.startswith(session_id):
                return runtime
        return self.start(None, None, None, session_id)  # one of an earlier process, here

    async def aclose(self) -> None:
        for runtime in self.open.values():
            await runtime.aclose()


async def answer(runtime: Runtime, prompt: str, ctx: Context) -> RunAnswer:
    """One turn of `runtime`, its progress reported to the caller."""
    text, error, rounds, step = "", None, 0, 0
    async for event in runtime.turn(prompt):
        if (line := progress_line(event)) is not None:
            step += 1
            await ctx.report_progress(step, message=line)
        if isinstance(event, ErrorEvent):
            error = event.message
        elif isinstance(event, TurnEnd):
            text, rounds = event.text, event.rounds
    session = runtime.session
    return RunAnswer(
        result=text,
        session_id=session.id,
        is_error=error is not None,
        error=error,
        num_turns=rounds,
        usage=session.usage.model_dump(),
        cost_usd=session.cost_usd,
    )


def progress_line(event: Event) -> str | None:
    if isinstance(event, ToolStart):
        return f"running {title(event.name, event.input)}"
    if isinstance(event, ToolEnd):
        return ("✗ " if event.is_error else "") + event.summary
    return None


def build(sessions: Sessions) -> MCPServer:
    server = MCPServer("agent")

    async def run(runtime: Runtime, prompt: str, ctx: Context) -> RunAnswer:
        sid = runtime.session.id
        if sid in sessions.busy:
            raise ToolError(f"session {sid} is answering another call")
        sessions.busy.add(sid)
        try:
            return await answer(runtime, prompt, ctx)
        except asyncio.CancelledError:
            log.info("mcp: the call on session %s was cancelled", sid)
            raise
        finally:
            sessions.busy.discard(sid)

    @server.tool()
    async def agent(
        prompt: Annotated[str, Field(min_length=1, description="What to do.")],
        ctx: Context,
        cwd: Annotated[str | None, Field(description=CWD)] = None,
        permission_mode: Annotated[PermissionMode | None, Field(description=MODE)] = None,
        model: Annotated[str | None, Field(description="Model id.")] = None,
    ) -> RunAnswer:
        """Run a coding agent on a prompt in a new session: it reads, searches, edits and runs
        code in the repository, and answers when done. Continue with agent_reply."""
        try:
            runtime = sessions.start(cwd, permission_mode, model, None)
        except (AgentError, Refused) as e:  # ToolError: the client reads why
            raise ToolError(str(e)) from None
        return await run(runtime, prompt, ctx)

    @server.tool()
    async def agent_reply(
        session_id: Annotated[str, Field(min_length=1, description="From an earlier answer.")],
        prompt: Annotated[str, Field(min_length=1, description="The next message.")],
        ctx: Context,
    ) -> RunAnswer:
        """Continue a session the agent tool started, with its whole conversation."""
        try:
            runtime = sessions.find(session_id)
        except AgentError as e:
            raise ToolError(str(e)) from None
        return await run(runtime, prompt, ctx)

    return server


async def serve(defaults: Defaults) -> None:
    sessions = Sessions(defaults)
    try:
        await serve_stdio(build(sessions))
    finally:
        await sessions.aclose()


def run_mcp(defaults: Defaults) -> None:
    import contextlib

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(defaults))
