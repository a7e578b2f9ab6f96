"""Background shells through the loop, the real SDK and the fake model: a server started in the
background and reached by a later call, only new output read, the whole group killed, a long
foreground command moved off the turn, and the job-ended notice in the next request."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.events import Event
from agent_cli.ext.jobs.service import JobsService
from agent_cli.runtime.ports import Assembly
from tests.e2e.agents import bypass, make_assembly_with_jobs
from tests.e2e.jobs_support import group_members, job_output, job_pid, results, wait_for_text
from tests.fake_model import FakeAnthropic, Script

SERVER = "python3 -u -m http.server 0 --bind 127.0.0.1"
# a foreground call that lasts until the board has recorded the job's end (the notice is posted
# in the same step), so the request after it is the one that must carry the notice
GO_WAIT = "for i in $(seq 400); do [ -e go ] && break; sleep 0.05; done"
ENDED_RECORDED = (
    'for i in $(seq 400); do grep -qs \'"event":"end"\' .transcripts/jobs/*/jobs.jsonl '
    "&& break; sleep 0.05; done"
)


def run(made: tuple[Assembly, JobsService], prompt: str) -> list[Event]:
    assembly, jobs = made

    async def go() -> list[Event]:
        try:
            return [event async for event in assembly.agent.run_turn(prompt)]
        finally:
            await jobs.aclose()
            await assembly.agent.client.close()

    return asyncio.run(go())


# each sandboxed command has a network of its own, and the pid it prints is the namespace's
@pytest.mark.usefixtures("sdk_env", "sandbox_off")
def test_a_background_server_is_reached_read_and_killed(fake_model: FakeAnthropic, tmp_path: Path):
    seen: dict[str, Any] = {}

    def read_port(body: dict[str, Any]) -> Script:
        started = results(body)[-1]
        seen["pid"] = job_pid(started)
        port = wait_for_text(job_output(started), r"port (\d+)").group(1)
        seen["port"] = port
        return Script().tool_use("bash_output", id="j1")

    def fetch(body: dict[str, Any]) -> Script:
        url = f"http://127.0.0.1:{seen['port']}/"
        code = f"import urllib.request as u; print('status', u.urlopen('{url}').status)"
        return Script().tool_use("bash", command=f'python3 -c "{code}"')

    fake_model.script.tool_use("bash", command=SERVER, run_in_background=True)
    fake_model.script.respond(read_port).respond(fetch)
    fake_model.script.tool_use("bash_output", id="j1").tool_use("bash_kill", id="j1")
    fake_model.script.text("served and stopped")
    run(make_assembly_with_jobs(tmp_path, bypass()), "start a server and try it")

    final = results(fake_model.bodies()[-1])
    started, first_read, fetched, second_read, killed = final
    assert "Started in the background as job j1" in started
    assert "Serving HTTP on 127.0.0.1 port" in first_read
    assert "status 200" in fetched  # a later bash call reached the background server
    assert '"GET / HTTP/1.1" 200' in second_read
    assert "Serving HTTP" not in second_read  # only what is new since the last read
    assert "Killed job j1" in killed
    assert group_members(seen["pid"]) == []  # checked in the process table


@pytest.mark.usefixtures("sdk_env")
def test_a_long_foreground_command_moves_to_the_background(
    fake_model: FakeAnthropic, tmp_path: Path
):
    command = "echo warming up; sleep 60"
    fake_model.script.tool_use("bash", command=command, timeout_s=120).text("it runs on")
    assembly, jobs = make_assembly_with_jobs(tmp_path, bypass(jobs={"background_after_s": 0.5}))
    board = jobs.board
    pids: list[int] = []

    async def go() -> None:
        try:
            async for _ in assembly.agent.run_turn("run it"):
                pass
            (job,) = board.running()  # the turn ended; the command did not
            pids.append(job.pid)
            assert group_members(job.pid) != []
        finally:
            await board.aclose()
            await assembly.agent.client.close()

    asyncio.run(go())
    moved = results(fake_model.bodies()[-1])[-1]
    assert re.search(r"Still running after \d+ s, so it was moved to the background", moved)
    assert "moved to the background as job j1" in moved
    assert "warming up" in moved
    assert group_members(pids[0]) == []  # the exit stopped it


@pytest.mark.usefixtures("sdk_env")
def test_the_job_ended_notice_is_in_the_next_request(fake_model: FakeAnthropic, tmp_path: Path):
    # the job ends only once the second call has started: its notice belongs to the third request
    job = f"{GO_WAIT}; echo tail-of-the-job; exit 3"
    fake_model.script.tool_use("bash", command=job, run_in_background=True)
    fake_model.script.tool_use("bash", command=f"touch go; {ENDED_RECORDED}").text("noted")
    run(make_assembly_with_jobs(tmp_path, bypass()), "go")

    bodies = fake_model.bodies()
    last = bodies[-1]["messages"][-1]["content"]
    kinds = [block["type"] for block in last]
    assert kinds == ["tool_result", "text"]  # after the result, never between a pair
    notice = last[1]["text"]
    assert re.search(r"\[background job j1 `.*` ended: exit 3 after \d+ s\]", notice)
    assert "tail-of-the-job" in notice
    # one notice, in one request: the one before had none, and it is not repeated
    assert all("background job j1" not in str(b["messages"][-1]) for b in bodies[:-1])


# the job must print before its run ends; in the sandbox its start (bwrap, the proxy's
# forwarder) can take longer than the rest of the turn, and the job is stopped at exit unprinted
@pytest.mark.usefixtures("sdk_env", "sandbox_off")
def test_a_resumed_session_lists_its_previous_jobs_as_ended(
    fake_model: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from tests.e2e.runtime_support import drive, make_runtime

    fake_model.script.tool_use("bash", command="echo hello; sleep 1000", run_in_background=True)
    fake_model.script.text("started").text("resumed")
    first = make_runtime(tmp_path, monkeypatch)
    asyncio.run(drive(first, "start it"))
    output = job_output(results(fake_model.bodies()[-1])[0])
    assert "hello" in output.read_text()

    again = make_runtime(tmp_path, monkeypatch, resume=first.session.id)
    jobs = again.extension("jobs")
    assert isinstance(jobs, JobsService)
    (past,) = jobs.past()
    assert (past.id, past.output, past.how) == ("j1", str(output), "stopped at exit")
    asyncio.run(drive(again, "what ran before?"))
    told = fake_model.bodies()[-1]["messages"][-1]["content"]
    listing = "\n".join(b["text"] for b in told if b["type"] == "text")
    assert "Background jobs of this session's previous run (all ended now)" in listing
    assert f"- j1 `echo hello; sleep 1000` (stopped at exit); output: {output}" in listing


@pytest.mark.usefixtures("sdk_env")
def test_the_notice_never_carries_the_api_key(fake_model: FakeAnthropic, tmp_path: Path):
    from tests.conftest import FAKE_API_KEY

    (tmp_path / "leak.txt").write_text(f"key={FAKE_API_KEY}\n")
    job = f"{GO_WAIT}; cat leak.txt"
    fake_model.script.tool_use("bash", command=job, run_in_background=True)
    fake_model.script.tool_use("bash", command=f"touch go; {ENDED_RECORDED}").text("noted")
    run(make_assembly_with_jobs(tmp_path, bypass()), "go")
    notice = fake_model.bodies()[-1]["messages"][-1]["content"][1]["text"]
    assert "key=[redacted]" in notice
    assert FAKE_API_KEY not in json.dumps(fake_model.bodies())
