"""Episodic memory as front ends reach it (`runtime.memory`): every session's episode writer of
this run, the workspace's newest episodes, an episode written now."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from agent_cli.memory.setup import finish, listing

if TYPE_CHECKING:
    from agent_cli.memory.episode import Episode
    from agent_cli.memory.manager import EpisodeManager
    from agent_cli.session.state import Session


class Remembering:
    def __init__(
        self, session: Callable[[], Session], current: Callable[[], Awaitable[EpisodeManager]]
    ) -> None:
        self._session, self._current = session, current
        self.managers: list[EpisodeManager] = []  # every session's of this run, for the exit
        self.on_saved: Callable[[Episode], None] | None = None  # told of each episode saved

    def adopt(self, manager: EpisodeManager) -> None:
        """A session's episode writer, as its agent is assembled."""
        manager.on_saved = self.on_saved
        self.managers.append(manager)

    @property
    def busy(self) -> bool:
        """Episode work of this run is still going on (the exit will wait for it)."""
        return any(m.busy for m in self.managers)

    def episodes(self) -> str:
        """/memory: the workspace's newest episodes, a line each."""
        return listing(self._session())

    async def remember(self) -> bool:
        """/remember: an episode of the session so far, in the background. False: nothing new."""
        return (await self._current()).remember()

    async def finish(self) -> None:
        """Before the exit: the episode work still going on, bounded."""
        await finish(self.managers)
