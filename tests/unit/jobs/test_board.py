"""The job board with real shells: the cap on running jobs, reads of only new output from a
byte offset, a kept job surviving the board's close, and the guard's bookkeeping of groups."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

from agent_cli.core.outside.guard import watch
from agent_cli.core.settings.schema import Settings
from agent_cli.ext.jobs.board import JobBoard
from agent_cli.ext.jobs.job import Job
from agent_cli.tools.registry import ToolRegistry
from tests.e2e.jobs_support import board_tools, group_members
from tests.unit.tool_helpers import make_ctx
from tests.waiting import until


def test_the_cap_refuses_one_job_too_many_and_reads_are_incremental(tmp_path: Path):
    settings = Settings.model_validate({"jobs": {"max_jobs": 1}})
    ctx = make_ctx(tmp_path, settings)
    board = JobBoard(ctx.paths, settings.jobs)
    registry = ToolRegistry(board_tools(board))

    async def go() -> list[str]:
        try:
            bg = {"command": "echo one; sleep 0.3; echo two; sleep 30", "run_in_background": True}
            first = await registry.dispatch("bash", bg, ctx, "c1")
            refused = await registry.dispatch("bash", bg, ctx, "c2")
            (job,) = board.running()
            await until(lambda: "two" in job.output.read_text(), what="the second line")
            read = await registry.dispatch("bash_output", {"id": "j1"}, ctx, "c3")
            again = await registry.dispatch("bash_output", {"id": "1"}, ctx, "c4")
            from_start = await registry.dispatch("bash_output", {"id": "j1", "since": 0}, ctx, "c5")
            return [r.content for r in (first, refused, read, again, from_start)]
        finally:
            await board.aclose()

    first, refused, read, again, from_start = asyncio.run(go())
    assert "Started in the background as job j1" in first
    assert "Not started: 1 background jobs are already running (jobs.max_jobs)" in refused
    assert "one\ntwo" in read
    assert "(no new output)" in again
    assert "one\ntwo" not in again
    assert "one\ntwo" in from_start


def test_a_kept_job_outlives_the_close_and_the_others_do_not(tmp_path: Path):
    ctx = make_ctx(tmp_path)
    board = JobBoard(ctx.paths, ctx.settings.jobs)
    registry = ToolRegistry(board_tools(board))

    async def go() -> list[Job]:
        for n in (1, 2):
            call = {"command": "sleep 30", "run_in_background": True}
            await registry.dispatch("bash", call, ctx, f"c{n}")
        kept, other = board.running()
        assert board.keep(kept) is None
        left = await board.aclose()
        assert left == [kept]
        return [kept, other]

    kept, other = asyncio.run(go())
    try:
        assert group_members(other.pid) == []
        assert group_members(kept.pid) != []
    finally:
        os.killpg(kept.pid, signal.SIGKILL)
        assert isinstance(kept.proc, subprocess.Popen)
        kept.proc.wait()


def test_the_guard_kills_only_what_is_still_registered():
    assert watch(["+10\n", "+11\n", "-10\n", "junk\n", "+\n", "+12"]) == {11, 12}
