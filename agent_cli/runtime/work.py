"""The Runtime's part for work that takes a while: background jobs (a resumed session's old
ones, waiting for them), steering a running turn (the session's inbox, which front ends reach
only through these methods, across session switches), and the `notification` hooks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent_cli.core.text.redaction import redact
from agent_cli.ext.jobs.ledger import listing, past_jobs
from agent_cli.policy.hooks import Hooks

if TYPE_CHECKING:
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.options import Options
    from agent_cli.ext.jobs.board import JobBoard
    from agent_cli.ext.jobs.ledger import PastJob
    from agent_cli.session.state import Session


class LongWork:
    """Mixed into the Runtime, which provides these."""

    session: Session
    options: Options
    past_jobs: list[PastJob]
    _turn_task: asyncio.Task[object] | None
    # told whenever the inbox changes, whichever session is current
    inbox_listeners: list[Callable[[], None]]

    @property
    def jobs(self) -> JobBoard:
        raise NotImplementedError

    def adopt_jobs(self, paths: Paths, session: Session, resumed: bool) -> None:
        """A resumed session's previous run left jobs: listed as ended, and the model hears
        of them at its next request (it must not guess)."""
        self.past_jobs = past_jobs(paths, session.id) if resumed else []
        if self.past_jobs:
            self.jobs.skip_past(self.past_jobs)
            session.tool_ctx.inbox.notice(listing(self.past_jobs))

    @property
    def turn_running(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    def steer(self, text: str) -> bool:
        """Queue a message: the model gets it at the next point where every tool call has its
        result (in the running turn, else at the next turn's first request). False when no
        turn runs."""
        self.session.tool_ctx.inbox.queue(text)
        return self.turn_running

    def watch_inbox(self, listener: Callable[[], None]) -> None:
        """`listener` hears every change of the inbox: queued messages, ended jobs' notices."""
        self.inbox_listeners.append(listener)
        self.session.tool_ctx.inbox.listeners.append(listener)

    @property
    def queued(self) -> list[str]:
        """Typed during the turn, oldest first: the model reads them at its next tool boundary."""
        return list(self.session.tool_ctx.inbox.queued)

    @property
    def notices_waiting(self) -> bool:
        """A background job ended and the model has not been told yet."""
        return bool(self.session.tool_ctx.inbox.notices)

    def recall_queued(self) -> str | None:
        """The newest queued message, taken back (the user edits it)."""
        return self.session.tool_ctx.inbox.recall()

    def next_queued(self) -> str | None:
        """The oldest queued message, taken out: an idle chat runs it as its next turn."""
        return self.session.tool_ctx.inbox.next_queued()

    def give_back_queued(self) -> list[str]:
        """Every queued message, taken back (a stopped turn returns them to the input box)."""
        return self.session.tool_ctx.inbox.give_back()

    def redact(self, text: str) -> str:
        """`text` with the session's secrets masked (what a front end shows of a job)."""
        return redact(text, self.session.tool_ctx.secrets)

    async def wait_jobs(self) -> None:
        """`agent run --wait-jobs`: until every background job has ended by itself."""
        await self.jobs.wait_all()

    async def notify(self, kind: str, message: str) -> None:
        """The `notification` hooks: a long turn ended ("turn_done"), or an "approval" or
        "question" waits for the user (the front end rings the terminal itself)."""
        settings = self.session.settings
        if settings.notify.hook and settings.hooks.notification:
            hooks = Hooks(settings.hooks, self.session.id, self.options.workspace)
            await hooks.notification(kind, message)
