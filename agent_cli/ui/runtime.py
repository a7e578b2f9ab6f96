"""What the REPL drives: settings, the current session, and the agent, with the SDK client built
lazily (its import runs in a background thread from start-up on, so the prompt never waits)."""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from agent_cli.approval import Approver
from agent_cli.build import (
    Options,
    build_agent,
    load,
    make_client,
    open_session,
    start_logging,
)
from agent_cli.loop.agent import Agent
from agent_cli.memory.episode import Episode
from agent_cli.memory.manager import EpisodeManager
from agent_cli.memory.setup import attach_memory, finish
from agent_cli.model.call_log import CallLog
from agent_cli.model.client import ModelClient
from agent_cli.model.credentials import require_credentials
from agent_cli.paths import Paths
from agent_cli.session.resume import Restored, fold
from agent_cli.session.state import Session
from agent_cli.settings import Settings

SDK_MODULE = "agent_cli.model.anthropic"


def preload_sdk() -> threading.Thread:
    thread = threading.Thread(target=importlib.import_module, args=(SDK_MODULE,), daemon=True)
    thread.start()
    return thread


@dataclass
class Backend:
    options: Options
    settings: Settings
    paths: Paths
    call_log: CallLog
    approver: Approver
    session: Session
    restored: Restored | None = None
    _client: ModelClient | None = None
    _agent: Agent | None = None
    memory: EpisodeManager | None = None  # the current session's, made with its agent
    on_episode: Callable[[Episode], None] | None = None  # told of each episode written
    _memories: list[EpisodeManager] = field(default_factory=list)  # this run's, for the exit wait
    _preload: threading.Thread | None = field(default=None, repr=False)

    @classmethod
    def start(cls, options: Options, approver: Approver) -> Backend:
        settings, paths = load(options)
        require_credentials()
        call_log = start_logging(paths, quiet=True)  # stderr belongs to the screen
        session = open_session(options, settings, paths)
        backend = cls(options, settings, paths, call_log, approver, session)
        backend._adopt(session, options)
        backend._preload = preload_sdk()
        return backend

    def open(self, options: Options) -> None:
        """Switch to a new session, or to the one `options` resumes (UsageError if none)."""
        self._adopt(open_session(options, self.settings, self.paths), options)

    def _adopt(self, session: Session, options: Options) -> None:
        resumed = bool(options.resume or options.continue_last)
        self.restored = fold(self.paths.transcript(session.id)) if resumed else None
        self.options = replace(options, resume=None, continue_last=False)
        self.session, self._agent, self.memory = session, None, None

    def new_session(self) -> None:
        self.open(replace(self.options, resume=None, continue_last=False))

    def resume(self, session_id: str) -> None:
        self.open(replace(self.options, resume=session_id, continue_last=False))

    @property
    def permission_mode(self) -> str:
        return self.options.permission_mode or self.settings.permissions.mode

    async def agent(self) -> Agent:
        if self._client is None:
            await asyncio.to_thread(importlib.import_module, SDK_MODULE)
            self._client = make_client(self.settings, self.call_log)
        if self._agent is None:
            self._agent = build_agent(self.session, self._client, self.options, self.approver)
            self.memory = attach_memory(self._agent)  # episodes in the background (§10)
            self.memory.on_saved = self.on_episode
            self._memories.append(self.memory)
        return self._agent

    async def episodes(self) -> EpisodeManager:
        """The current session's EpisodeManager (building the agent if need be)."""
        await self.agent()
        assert self.memory is not None  # made with the agent
        return self.memory

    @property
    def remembering(self) -> bool:
        """Episode work of this run is still going on (the exit will wait for it)."""
        return any(m.busy for m in self._memories)

    async def close(self) -> None:
        if self._client is not None:
            await finish(self._memories)  # bounded by settings.background_wait_s
            await self._client.close()

