"""The jobs of one agent run: a cap on how many run at once, the output files, the watcher that
kills them if the agent dies, the notice when one ends, and the stop of all of them at exit.

Tools spawn the shell (they know its environment); the board takes it from there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_cli.core.files.paths import Paths, ensure_state_folder
from agent_cli.core.inbox import Inbox
from agent_cli.core.outside import guard
from agent_cli.core.outside.groups import Shell, exit_code
from agent_cli.core.outside.watch import start_guard
from agent_cli.core.settings.features import JobsSettings
from agent_cli.ext.jobs import ledger
from agent_cli.ext.jobs.job import Job

log = logging.getLogger(__name__)

POLL_S = 0.05
# after the shell exits, how long a process that left its group may keep the pipe open
DRAIN_S = 2.0


class JobLimitError(Exception):
    pass


@dataclass(frozen=True)
class Slot:
    """A job id and output file reserved before its shell is spawned."""

    id: str
    output: Path
    session_id: str


class JobBoard:
    def __init__(self, paths: Paths, settings: JobsSettings) -> None:
        self.paths, self.settings = paths, settings
        self.jobs: dict[str, Job] = {}
        self.listeners: list[Callable[[], None]] = []  # a job started or ended (the panel)
        self._count = 0
        self._guard: int | None = None  # the write end of the watcher's pipe
        self._foreground: set[asyncio.Event] = set()
        self._closed = False  # the run is over: no watcher is started again

    # -- what the panel and /jobs read -------------------------------------------------------

    def running(self) -> list[Job]:
        return [job for job in self.jobs.values() if job.running]

    def get(self, job_id: str) -> Job | None:
        key = job_id.strip()
        return self.jobs.get(key) or self.jobs.get(f"j{key}")

    def skip_past(self, past: list[ledger.PastJob]) -> None:
        """Ids go on after those of a resumed session's previous run."""
        for job in past:
            if job.id[1:].isdigit():
                self._count = max(self._count, int(job.id[1:]))

    # -- starting ----------------------------------------------------------------------------

    def reserve(self, session_id: str) -> Slot:
        if len(self.running()) >= self.settings.max_jobs:
            raise JobLimitError(
                f"{self.settings.max_jobs} background jobs are already running (jobs.max_jobs); "
                "stop one with bash_kill first"
            )
        self._count += 1
        job_id = f"j{self._count}"
        folder = ensure_state_folder(ledger.folder(self.paths, session_id))
        return Slot(job_id, folder / f"{job_id}.log", session_id)

    def register(
        self,
        slot: Slot,
        proc: Shell,
        command: str,
        inbox: Inbox | None,
        head: bytes = b"",
    ) -> Job:
        """`proc` is now a job. A moved foreground command brings what it printed so far
        (`head`) and its pipe, which is copied into the output file from now on."""
        job = Job(slot.id, command, proc, slot.output, slot.session_id, inbox)
        self.jobs[job.id] = job
        pump = None
        if isinstance(proc, asyncio.subprocess.Process) and proc.stdout is not None:
            job.moved = True
            slot.output.write_bytes(head)
            pump = asyncio.ensure_future(_pump(proc.stdout, slot.output))
        self._tell_guard(f"+{proc.pid}")
        record = ledger.JobStarted(
            id=job.id, command=command, pid=proc.pid, output=str(slot.output), at=ledger.now()
        )
        ledger.append(self.paths, slot.session_id, record)
        job.monitor = asyncio.ensure_future(self._monitor(job, pump))
        self._changed()
        return job

    # -- the foreground command a key may move -----------------------------------------------

    @contextlib.contextmanager
    def foreground(self, pid: int) -> Iterator[asyncio.Event]:
        """Held by a running foreground bash (the leader of group `pid`, which the watcher
        also kills if the agent dies meanwhile): set when the user asks to move it."""
        event = asyncio.Event()
        self._foreground.add(event)
        self._tell_guard(f"+{pid}")
        try:
            yield event
        finally:
            self._foreground.discard(event)
            self._tell_guard(f"-{pid}")

    def move_foreground(self) -> bool:
        """The key that moves the running foreground command(s) to the background."""
        for event in self._foreground:
            event.set()
        return bool(self._foreground)

    # -- stopping ----------------------------------------------------------------------------

    async def kill(self, job: Job, how: str = "killed") -> None:
        """Stop the job's whole process group: SIGTERM, then SIGKILL after a grace."""
        if job.running and not job.how:
            job.how = how
        await asyncio.to_thread(guard.kill_groups, {job.pid})
        if job.monitor is not None:
            await asyncio.shield(job.monitor)

    def keep(self, job: Job) -> str | None:
        """The user keeps this job: it outlives the agent (listed with its pid at exit).
        Why not, when it cannot be kept."""
        if job.moved:
            return "its output runs through the agent (it was moved from the foreground)"
        if not job.running:
            return f"it has already {job.status()}"
        job.kept = True
        self._tell_guard(f"-{job.pid}")
        self._changed()
        return None

    async def aclose(self) -> list[Job]:
        """Every job's group is stopped except the kept ones, which are returned."""
        doomed = [job for job in self.running() if not job.kept]
        await asyncio.gather(*(self.kill(job, "stopped at exit") for job in doomed))
        kept = [job for job in self.running() if job.kept]
        for job in kept:
            if job.monitor is not None:
                job.monitor.cancel()
        self._closed = True
        if self._guard is not None:
            with contextlib.suppress(OSError):
                os.close(self._guard)  # the watcher exits: nothing is left for it
            self._guard = None
        return kept

    async def wait_all(self) -> None:
        """`agent run --wait-jobs`: until every job has ended by itself."""
        while monitors := [j.monitor for j in self.running() if j.monitor is not None]:
            await asyncio.wait(monitors)

    # -- inside ------------------------------------------------------------------------------

    async def _monitor(self, job: Job, pump: asyncio.Future[None] | None) -> None:
        proc = job.proc
        while (code := exit_code(proc)) is None:
            await asyncio.sleep(POLL_S)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # what it left in its group dies with it
        if pump is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(pump, DRAIN_S)
        self._ended(job, code)

    def _ended(self, job: Job, code: int | None) -> None:
        job.ended_at, job.exit_code = time.monotonic(), code
        job.how = job.how or "exited"
        self._tell_guard(f"-{job.pid}")
        record = ledger.JobEnded(id=job.id, exit_code=code, how=job.how, at=ledger.now())
        ledger.append(self.paths, job.session_id, record)
        if job.how != "killed" and job.inbox is not None:  # bash_kill's result already says it
            job.inbox.notice(job.notice(self.settings.notice_tail_lines))
        self._changed()

    def _tell_guard(self, line: str) -> None:
        if self._closed:
            return
        try:
            if self._guard is None:
                self._guard = start_guard()  # a new one hears of every job still running
                watched = [j.pid for j in self.running() if not j.kept and f"+{j.pid}" != line]
                line = "\n".join([*(f"+{pid}" for pid in watched), line])
            os.write(self._guard, f"{line}\n".encode())
        except OSError as e:
            self._guard = None  # the watcher is a second line of defence: the exit kills too
            log.warning("job watcher unavailable: %s", e)

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()


async def _pump(stream: asyncio.StreamReader, output: Path) -> None:
    with output.open("ab") as f:
        while chunk := await stream.read(65_536):
            f.write(chunk)
            f.flush()
