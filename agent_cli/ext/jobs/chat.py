"""Background jobs in `agent chat`: `/jobs` (the list, a job's output, stop one, keep one
running past the exit)."""

from __future__ import annotations

import asyncio

from agent_cli.ext.jobs.job import Job
from agent_cli.ext.jobs.service import JobsService
from agent_cli.runtime.extensions.contract import CommandPort

SHOWN_LINES = 40
_stopping: set[asyncio.Task[None]] = set()


def _line(job: Job) -> str:
    kept = " · kept past the exit" if job.kept else ""
    return f"{job.id}  {job.status()}{kept}  `{job.command}`"


def jobs_command(port: CommandPort, arg: str) -> None:
    service = port.context.services("jobs")
    if not isinstance(service, JobsService):
        port.say("Background jobs are not available here.", "red")
        return
    board = service.board
    verb, _, rest = arg.partition(" ")
    if not arg:
        if not board.jobs:
            port.say("No background jobs in this run.")
            return
        port.say("\n".join(_line(job) for job in board.jobs.values()))
        port.say("/jobs ID: its output · /jobs stop ID: stop it · /jobs keep ID: keep it", "dim")
        return
    job = board.get(rest if verb in ("stop", "keep") else verb)
    if job is None:
        known = ", ".join(board.jobs) or "none"
        port.say(f"No background job {(rest or verb)!r} (jobs: {known}).", "red")
        return
    if verb == "stop":
        _stop(port, service, job)
    elif verb == "keep":
        why_not = board.keep(job)
        if why_not:
            port.say(f"{job.id} cannot be kept: {why_not}.", "red")
        else:
            port.say(f"{job.id} keeps running after you leave (pid {job.pid}).")
    else:
        tail = "\n".join(job.tail(SHOWN_LINES)) or "(no output yet)"
        if service.run is not None:
            tail = service.run.work.redact(tail)
        port.say(f"{_line(job)}\n{tail}\nwhole output: {job.output}")


def _stop(port: CommandPort, service: JobsService, job: Job) -> None:
    if not job.running:
        port.say(f"{job.id} had already {job.status()}.")
        return

    async def stop() -> None:
        await service.board.kill(job, "stopped by the user")
        port.say(f"Stopped {job.id} and its whole process group.")

    task = asyncio.get_running_loop().create_task(stop())
    _stopping.add(task)  # held until done: the loop keeps only a weak reference
    task.add_done_callback(_stopping.discard)
