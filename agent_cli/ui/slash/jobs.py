"""Background jobs in `agent chat`: their rows in the side panel, and `/jobs` (a job's output,
stop one, keep one running past the exit)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent_cli.ext.jobs.job import Job
from agent_cli.ui.screen.side_panel import JobRow

if TYPE_CHECKING:
    from agent_cli.ext.jobs.board import JobBoard
    from agent_cli.ui.slash.host import Host

SHOWN_LINES = 40
_stopping: set[asyncio.Task[None]] = set()
HELP = {"/jobs [ID|stop ID|keep ID]": "background jobs: list, one's output, stop one, keep one"}


def job_rows(board: JobBoard, redact: Callable[[str], str]) -> list[JobRow]:
    """The running jobs, their last lines redacted as any tool output shown is."""
    return [
        JobRow(job.id, job.command, int(job.elapsed()), redact(job.last_line()), job.kept)
        for job in board.running()
    ]


def _line(job: Job) -> str:
    kept = " · kept past the exit" if job.kept else ""
    return f"{job.id}  {job.status()}{kept}  `{job.command}`"


def jobs_command(host: Host, arg: str) -> None:
    board = host.runtime.jobs
    verb, _, rest = arg.partition(" ")
    if not arg:
        if not board.jobs:
            host.say("No background jobs in this run.")
            return
        host.say("\n".join(_line(job) for job in board.jobs.values()))
        host.say("/jobs ID: its output · /jobs stop ID: stop it · /jobs keep ID: keep it", "dim")
        return
    job = board.get(rest if verb in ("stop", "keep") else verb)
    if job is None:
        known = ", ".join(board.jobs) or "none"
        host.say(f"No background job {(rest or verb)!r} (jobs: {known}).", "red")
        return
    if verb == "stop":
        _stop(host, job)
    elif verb == "keep":
        why_not = board.keep(job)
        if why_not:
            host.say(f"{job.id} cannot be kept: {why_not}.", "red")
        else:
            host.say(f"{job.id} keeps running after you leave (pid {job.pid}).")
    else:
        tail = "\n".join(job.tail(SHOWN_LINES)) or "(no output yet)"
        tail = host.runtime.redact(tail)
        host.say(f"{_line(job)}\n{tail}\nwhole output: {job.output}")


def _stop(host: Host, job: Job) -> None:
    if not job.running:
        host.say(f"{job.id} had already {job.status()}.")
        return

    async def stop() -> None:
        await host.runtime.jobs.kill(job, "stopped by the user")
        host.say(f"Stopped {job.id} and its whole process group.")

    task = asyncio.get_running_loop().create_task(stop())
    _stopping.add(task)  # held until done: the loop keeps only a weak reference
    task.add_done_callback(_stopping.discard)


def kept_listing(kept: list[Job]) -> str:
    """Said on the way out: what still runs because the user kept it."""
    lines = ["Still running (kept):"]
    lines += [f"  {job.id} pid {job.pid}  `{job.command}`  output: {job.output}" for job in kept]
    return "\n".join(lines)
