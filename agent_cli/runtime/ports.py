"""What the Runtime asks of the composition root (`runtime/build.py`), which it never imports:
a session opened, a model client made, a session's agent assembled."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_cli.context.breakdown import ContextMeter
    from agent_cli.core.events import Event
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.options import Options
    from agent_cli.core.settings.schema import Settings
    from agent_cli.loop.agent import Agent
    from agent_cli.memory.manager import EpisodeManager
    from agent_cli.model.call_log import CallLog
    from agent_cli.model.client import ModelClient
    from agent_cli.policy.approval import Approver
    from agent_cli.runtime.extensions.registry import Extensions
    from agent_cli.session.resume import RestoredSession
    from agent_cli.session.state import Session


Attach = Callable[[str], Awaitable[str]]
"""The port "attachments": what the user typed, with what it mentions attached (an MCP
server's `@server:uri` resources)."""


@dataclass
class Assembly:
    """A session's agent and its episodic memory, as the composition root wired them."""

    agent: Agent
    memory: EpisodeManager
    # run when the session ends (SessionEnd hooks), told why: "exit", "clear"
    on_end: list[Callable[[str], Awaitable[None]]] = field(default_factory=list)
    meter: ContextMeter | None = None  # where the context goes (/context, run's "context")


class Composer(Protocol):
    settings: Settings
    paths: Paths
    call_log: CallLog
    extensions: Extensions  # the run's: built-in and installed, loaded

    def open_session(self, options: Options) -> tuple[Session, RestoredSession | None]: ...

    def make_client(self, on_sent: Callable[[], None] | None = None) -> ModelClient: ...

    def assemble(
        self,
        session: Session,
        client: ModelClient,
        options: Options,
        approver: Approver | None,
        publish: Callable[[Event], None],
        services: Callable[[str], object | None] = lambda name: None,
    ) -> Assembly: ...

    async def aclose(self) -> None: ...  # what it started for the run (extensions' services)
