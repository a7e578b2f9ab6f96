"""The Runtime's part for work that takes a while: steering a running turn (the session's
inbox, which front ends reach only through these methods, across session switches), the
`notification` hooks, and what front ends ask of the run's background jobs (a Protocol of the
spine's: the "jobs" extension's service provides it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from agent_cli.core.text.redaction import redact
from agent_cli.policy.hooks import Hooks

if TYPE_CHECKING:
    from agent_cli.core.options import Options
    from agent_cli.session.state import Session

JOBS = "jobs"  # the extension whose service the front ends ask for


class RunningJob(Protocol):
    """A running job as a front end shows it (its last line already redacted)."""

    @property
    def id(self) -> str: ...
    @property
    def command(self) -> str: ...
    @property
    def elapsed_s(self) -> int: ...
    @property
    def last_line(self) -> str: ...
    @property
    def kept(self) -> bool: ...


@runtime_checkable
class BackgroundJobs(Protocol):
    """What front ends ask of the run's background jobs (`runtime.extension("jobs")`)."""

    listeners: list[Callable[[], None]]  # told when a job starts or ends

    def past_listing(self) -> str:
        """A resumed session's previous run's jobs (all ended), or ""."""
        ...

    def kept_listing(self) -> str:
        """After the run's end: the jobs the user kept running, or ""."""
        ...

    def rows(self) -> Sequence[RunningJob]: ...

    def move_foreground(self) -> bool:
        """The running foreground command(s) to the background; False if none runs."""
        ...

    async def wait_all(self) -> None:
        """Until every job has ended by itself."""
        ...


def background_jobs(extension: Callable[[str], object | None]) -> BackgroundJobs | None:
    """The run's background jobs through `extension` (the Runtime's); None without them."""
    found = extension(JOBS)
    return found if isinstance(found, BackgroundJobs) else None


class LongWork:
    """Work that takes a while, as front ends reach it (`runtime.work`): steering the running
    turn through the session's inbox (whichever session is current: a switch keeps the
    listeners), and the `notification` hooks."""

    def __init__(
        self,
        session: Callable[[], Session],
        options: Callable[[], Options],
        running: Callable[[], bool],
    ) -> None:
        self._session, self._options, self._running = session, options, running
        # told whenever the inbox changes, whichever session is current
        self.listeners: list[Callable[[], None]] = []

    @property
    def turn_running(self) -> bool:
        return self._running()

    def steer(self, text: str) -> bool:
        """Queue a message: the model gets it at the next point where every tool call has its
        result (in the running turn, else at the next turn's first request). False when no
        turn runs."""
        self._session().tool_ctx.inbox.queue(text)
        return self.turn_running

    def watch_inbox(self, listener: Callable[[], None]) -> None:
        """`listener` hears every change of the inbox: queued messages, ended jobs' notices."""
        self.listeners.append(listener)
        self._session().tool_ctx.inbox.listeners.append(listener)

    @property
    def queued(self) -> list[str]:
        """Typed during the turn, oldest first: the model reads them at its next tool boundary."""
        return list(self._session().tool_ctx.inbox.queued)

    @property
    def notices_waiting(self) -> bool:
        """A background job ended and the model has not been told yet."""
        return bool(self._session().tool_ctx.inbox.notices)

    def recall_queued(self) -> str | None:
        """The newest queued message, taken back (the user edits it)."""
        return self._session().tool_ctx.inbox.recall()

    def next_queued(self) -> str | None:
        """The oldest queued message, taken out: an idle chat runs it as its next turn."""
        return self._session().tool_ctx.inbox.next_queued()

    def give_back_queued(self) -> list[str]:
        """Every queued message, taken back (a stopped turn returns them to the input box)."""
        return self._session().tool_ctx.inbox.give_back()

    def redact(self, text: str) -> str:
        """`text` with the session's secrets masked (what a front end shows of a job)."""
        return redact(text, self._session().tool_ctx.secrets)

    async def notify(self, kind: str, message: str) -> None:
        """The `notification` hooks: a long turn ended ("turn_done"), or an "approval" or
        "question" waits for the user (the front end rings the terminal itself)."""
        session = self._session()
        settings = session.settings
        if settings.notify.hook and settings.hooks.notification:
            hooks = Hooks(settings.hooks, session.id, self._options().workspace)
            await hooks.notification(kind, message)
