"""Episodic memory around a session: the system-prompt section of a new session, the bounded
wait before exit, and the listing /memory prints. Nothing here may break a session: an
unreadable index is logged and skipped."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_cli.memory.manager import EpisodeManager
    from agent_cli.session.state import Session

log = logging.getLogger(__name__)


def recent_episodes_section(session: Session) -> str:
    """The system-prompt section of a new session: the workspace's newest episodes. A resumed
    session, a missing index or an unreadable one gives ''."""
    limit = session.settings.memory.recent_episodes
    index = session.paths.index_db
    if session.messages or limit == 0 or not index.exists():
        return ""
    from agent_cli.memory import render  # an index is there: its code is needed
    from agent_cli.memory.episode_store import EpisodeStore

    try:
        episodes = EpisodeStore(index).recent(str(session.tool_ctx.workspace), limit)
    except sqlite3.Error as e:
        log.warning("episode index unreadable, no episodes in the prompt: %s", e)
        return ""
    return render.system_section(episodes)


async def finish(memories: list[EpisodeManager]) -> bool:
    """Before exit (and before the client closes): wait for background episode work, bounded by
    `background_wait_s`; all managers at once, so the bound holds for the whole. True if done."""
    waits = [m.wait(m.session.settings.background_wait_s) for m in memories]
    return all(await asyncio.gather(*waits))


def listing(session: Session, limit: int = 10) -> str:
    """/memory: the workspace's newest episodes, one line each."""
    index = session.paths.index_db
    if not index.exists():
        return "No episodes yet."
    from agent_cli.memory import render
    from agent_cli.memory.episode_store import EpisodeStore

    try:
        episodes = EpisodeStore(index).recent(str(session.tool_ctx.workspace), limit)
    except sqlite3.Error as e:
        return f"The episode index cannot be read: {e}"
    if not episodes:
        return "No episodes yet."
    return "\n".join(render.line(e) for e in episodes)
