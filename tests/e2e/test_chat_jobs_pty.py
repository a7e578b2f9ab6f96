"""Jobs in `agent chat`, in a pseudo-terminal: Ctrl-B moves the running foreground command to
the background, the panel lists the job (command, elapsed, last line), `/jobs` shows its
output and stops it (its process group gone from the process table), and `/exit` leaves none."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.jobs_support import group_members, job_pid, results
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

CTRL_B = "\x02"


def test_ctrl_b_moves_a_command_and_jobs_shows_and_stops_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    folder = Path(fake_env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps({"jobs": {"background_after_s": 0}}))
    fake_model.script.tool_use("bash", command="echo booting up; sleep 60").text("moved on")
    fake_model.script.tool_use("bash", command="sleep 60", run_in_background=True).text("again")
    term = ChatTerm(fake_env, tmp_path, "--permission-mode", "bypass", columns=140, lines=40)
    try:
        term.wait_for("you>")
        term.type("serve it")
        term.wait_for(lambda _t: len(fake_model.requests) == 1)
        term.wait_for("bash echo booting up")
        term.send(CTRL_B)
        screen = term.wait_for("moved on")
        moved = results(fake_model.bodies()[-1])[-1]
        assert "moved to the background as job j1" in moved
        pid = job_pid(moved)
        screen = term.wait_for(lambda t: "Jobs 1" in t and "booting up" in t)
        assert "j1" in screen
        term.type("/jobs")
        term.wait_for(lambda t: "j1  running for" in t)
        term.type("/jobs j1")
        term.wait_for("whole output:")
        term.type("/jobs stop j1")
        term.wait_for("Stopped j1 and its whole process group.")
        assert group_members(pid) == []
        term.wait_for(lambda t: "Jobs 1" not in t)
        term.type("start one more")  # still running at /exit
        term.wait_for("again")
        second = job_pid(results(fake_model.bodies()[-1])[-1])
        assert group_members(second) != []
        term.type("/exit")
        term.finish()
    finally:
        term.close()
    wait_until(lambda: group_members(second) == [], what="the job's group gone after /exit")


def test_an_idle_chat_starts_a_turn_for_an_ended_job_when_allowed(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    folder = Path(fake_env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps({"jobs": {"wake_on_end": True}}))
    wait = "for i in $(seq 400); do [ -e go ] && break; sleep 0.05; done"
    job = f"{wait}; echo all tests passed"
    fake_model.script.tool_use("bash", command=job, run_in_background=True).text("started")
    fake_model.script.text("the suite passed")
    term = ChatTerm(fake_env, tmp_path, "--permission-mode", "bypass")
    try:
        term.wait_for("you>")
        term.type("run the suite in the background")
        term.wait_for("started")
        term.wait_idle()
        (tmp_path / "go").touch()  # the job ends while the chat is idle
        term.wait_for("the suite passed")  # nobody typed: the ended job started the turn
    finally:
        term.close()
    woke = fake_model.bodies()[-1]["messages"][-1]["content"]
    notice = "\n".join(b["text"] for b in woke if b["type"] == "text")
    assert f"[background job j1 `{job}` ended: exit 0" in notice
    assert "all tests passed" in notice
