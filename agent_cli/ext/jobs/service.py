"""The background jobs of a run, as the rest of the agent reaches them: the extension's service
(`runtime.extension("jobs")`), made once per run. It is bash's port "jobs" (where a job starts,
and a long foreground command moves to), what the front ends read (the panel's rows, the
listings of a resumed session's old jobs and of the kept ones, the key that moves a command)
and what the run's end closes: every job stops except the ones the user kept (`kept`).

The board, its watcher and the ledger are made (imported) only when a command runs, a job
tool is called, or a resumed session had jobs: a run that starts no command pays nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent_cli.core.files.paths import Paths
    from agent_cli.core.options import Options
    from agent_cli.core.outside.groups import Shell
    from agent_cli.core.settings.schema import Settings
    from agent_cli.core.tool_contract import ToolContext, ToolResult
    from agent_cli.ext.jobs.board import JobBoard
    from agent_cli.ext.jobs.job import Job
    from agent_cli.ext.jobs.ledger import PastJob
    from agent_cli.session.state import Session


class Redacting(Protocol):
    def redact(self, text: str) -> str: ...


class Run(Protocol):
    """What the service reads of the run (the Runtime)."""

    @property
    def paths(self) -> Paths: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def options(self) -> Options: ...
    @property
    def session(self) -> Session: ...
    @property
    def restored(self) -> object | None: ...  # the session was resumed
    @property
    def work(self) -> Redacting: ...  # the Runtime's long work: what it masks


@dataclass(frozen=True)
class Row:
    """A running job as the side panel shows it (its last line redacted)."""

    id: str
    command: str
    elapsed_s: int
    last_line: str
    kept: bool


def made(run: Any) -> JobsService:
    """The service of `run` (the Runtime): its board when first needed."""

    def board() -> JobBoard:
        from agent_cli.ext.jobs.board import JobBoard

        return JobBoard(run.paths, run.settings.jobs)

    settings = run.settings.jobs
    waits = run.options.one_shot and not settings.move_in_run  # `agent run`, unless asked
    return JobsService(board, run, None if waits else settings.background_after_s or None)


class JobsService:
    def __init__(
        self,
        board: Callable[[], JobBoard],
        run: Run | None = None,
        move_after_s: float | None = None,
    ) -> None:
        self._make, self.run = board, run
        # bash's: a foreground command still running after this many seconds becomes a job
        self.move_after_s = move_after_s
        self._board: JobBoard | None = None
        self.listeners: list[Callable[[], None]] = []  # a job started or ended (the panel)
        self.kept: list[Job] = []  # the user kept these running past the exit
        self._past: tuple[Session, list[PastJob]] | None = None

    @classmethod
    def over(cls, board: JobBoard) -> JobsService:
        """A service of a board made beforehand (a test's, a session's own)."""
        return cls(lambda: board, move_after_s=board.settings.background_after_s or None)

    @property
    def board(self) -> JobBoard:
        if self._board is None:
            self._board = self._make()
            self._board.listeners.append(self._changed)
        return self._board

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    # -- bash's port "jobs" (tools/shell/bash_jobs.py) ------------------------------------------

    def foreground(self, pid: int) -> AbstractContextManager[asyncio.Event]:
        return self.board.foreground(pid)

    def start(
        self,
        command: str,
        ctx: ToolContext,
        env: dict[str, str],
        argv: list[str] | None,
        fds: tuple[int, ...],
    ) -> tuple[Shell | None, ToolResult]:
        from agent_cli.ext.jobs.starting import start

        return start(self.board, command, ctx, env, argv, fds)

    async def move(
        self,
        proc: asyncio.subprocess.Process,
        reader: asyncio.Future[None],
        head: bytearray,
        command: str,
        ctx: ToolContext,
        waited_s: float,
    ) -> ToolResult | None:
        from agent_cli.ext.jobs.starting import move

        return await move(self.board, proc, reader, head, command, ctx, waited_s)

    # -- a session's jobs ------------------------------------------------------------------------

    def past(self) -> list[PastJob]:
        """The jobs the current session's previous run left (all ended): none unless resumed."""
        run = self.run
        if run is None or run.restored is None:
            return []
        if self._past is None or self._past[0] is not run.session:
            from agent_cli.ext.jobs.ledger import past_jobs

            self._past = (run.session, past_jobs(run.paths, run.session.id))
        return self._past[1]

    def adopt(self, session_id: str) -> None:
        """The session `session_id` is assembled: if its previous run left jobs, ids go on
        after theirs, and the model hears of them at its next request (it must not guess)."""
        if self.run is None or self.run.session.id != session_id:
            return
        if past := self.past():
            self.board.skip_past(past)
            self.run.session.tool_ctx.inbox.notice(self.past_listing())

    # -- what the front ends read --------------------------------------------------------------

    def past_listing(self) -> str:
        """The previous run's jobs, as the model and the user are told of them; "" if none."""
        past = self.past()
        if not past:
            return ""
        from agent_cli.ext.jobs.ledger import listing

        return listing(past)

    def kept_listing(self) -> str:
        """Said on the way out: what still runs because the user kept it; "" if nothing."""
        if not self.kept:
            return ""
        lines = ["Still running (kept):"]
        lines += [f"  {j.id} pid {j.pid}  `{j.command}`  output: {j.output}" for j in self.kept]
        return "\n".join(lines)

    def rows(self) -> list[Row]:
        if self._board is None:
            return []
        redact = self.run.work.redact if self.run is not None else str
        return [
            Row(job.id, job.command, int(job.elapsed()), redact(job.last_line()), job.kept)
            for job in self._board.running()
        ]

    def move_foreground(self) -> bool:
        """The key that moves the running foreground command(s) to the background."""
        return self._board is not None and self._board.move_foreground()

    async def wait_all(self) -> None:
        """`agent run --wait-jobs`: until every job has ended by itself."""
        if self._board is not None:
            await self._board.wait_all()

    async def aclose(self) -> list[Job]:
        """The run ends: every job's process group is stopped except the kept ones (returned,
        and in `kept`)."""
        if self._board is not None:
            self.kept = await self._board.aclose()
        return self.kept
