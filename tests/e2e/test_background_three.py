"""Issue 55's acceptance for `--bg`, the parts test_background.py leaves (each of its cases runs
one or two sessions): three background sessions at once, started from one terminal, against
the fake model server (which checks every request against SPEC §16): one finishes, one waits
on an approval, one on a question, and `agent ps --json` shows each state; the terminal's
session hung up (SIGHUP to every process in it) leaves the waiting ones running; a kill -9 of
one shows `stopped` in `agent ps` within 2 s; `agent stop` of the one that waits on a question
leaves a transcript that `agent run --continue` resumes validly.

The lead that hands two workers a task each and hears both answers is
test_background.py::test_a_lead_hands_two_workers_a_task_each_and_hears_both_answers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.ext.background.registry import GONE, process_start
from tests.e2e import test_background
from tests.e2e.helpers import REPO, run_agent
from tests.e2e.test_background import first_user, ps, record, until_state
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

WAIT_S = 60.0
KILLED_SHOWS_S = 2.0  # the acceptance's own bound: `agent ps` judges liveness as it reads
bg_env = test_background.bg_env  # a registry of the test's own, its sessions killed after
QUESTION = {
    "question": "Which greeting?",
    "header": "Greeting",
    "options": [{"label": "hello"}, {"label": "hi"}],
}
SESSIONS = {  # name -> (its folder, its prompt, the state it reaches)
    "finisher": ("a", "FINISH: say done", "done"),
    "writer": ("b", "WRITE: write out.txt", "waiting: approval"),
    "asker": ("c", "ASK: ask which greeting", "waiting: question"),
}


def in_session(sid: int) -> list[int]:
    """The processes of session `sid` (what a closing terminal hangs up)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getsid(int(entry.name)) == sid:
                    found.append(int(entry.name))
            except OSError:
                continue  # gone meanwhile
    return found


def alive(name: str, env: dict[str, str]) -> bool:
    row = record(env, name)
    return process_start(row["pid"]) == row["process_start"]


@pytest.mark.timeout(240)
def test_three_sessions_finish_wait_and_ask_outlive_the_terminal_and_stop_or_die_visibly(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    fake_model.route(lambda body: "FINISH" in first_user(body)).text("done here")
    fake_model.route(lambda body: "WRITE" in first_user(body)).tool_use(
        "write_file", path="out.txt", content="hi"
    )
    asker = fake_model.route(lambda body: "ASK" in first_user(body))
    asker.tool_use("ask_user", questions=[QUESTION]).text("going on")
    starts = []
    for name, (folder, prompt, _) in SESSIONS.items():
        (tmp_path / folder).mkdir()
        starts.append(
            f'cd {tmp_path / folder} && agent() {{ {sys.executable} -m agent_cli "$@"; }}'
            f" && agent run --bg --name {name} -p '{prompt}'"
        )
    terminal = subprocess.Popen(  # a shell in a session of its own, as a terminal's
        ["/bin/sh", "-c", f"({' ; '.join(starts)}) >/dev/null 2>&1; exec sleep 120"],
        env={**bg_env, "PYTHONPATH": str(REPO)},
        start_new_session=True,
    )
    for name, (_, _, state) in SESSIONS.items():
        until_state(bg_env, name, state)
    rows = ps(bg_env, tmp_path)
    assert {name: rows[name]["state"] for name in SESSIONS} == {
        name: state for name, (_, _, state) in SESSIONS.items()
    }
    assert "Which greeting?" in rows["asker"]["last"]

    for pid in in_session(terminal.pid):  # the terminal closes
        os.kill(pid, signal.SIGHUP)
    assert terminal.wait(timeout=WAIT_S) == -signal.SIGHUP
    rows = ps(bg_env, tmp_path)  # a process a hang-up ends is gone once ps has started
    assert all(alive(name, bg_env) for name in ("writer", "asker"))
    assert [rows[n]["state"] for n in ("writer", "asker")] == [
        "waiting: approval",
        "waiting: question",
    ]

    os.kill(record(bg_env, "writer")["pid"], signal.SIGKILL)
    wait_until(
        lambda: ps(bg_env, tmp_path)["writer"]["state"] == "stopped",
        KILLED_SHOWS_S,
        "the killed session shown stopped",
    )
    assert ps(bg_env, tmp_path)["writer"]["reason"] == GONE

    asking = tmp_path / "c"
    stopped = run_agent(bg_env, asking, "stop", "asker")
    assert stopped.returncode == 0, stopped.stderr
    row = ps(bg_env, tmp_path)["asker"]
    assert (row["state"], row["reason"]) == ("stopped", "stopped with agent stop")
    resumed = run_agent(bg_env, asking, "run", "--continue", "-p", "go on")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "going on\n"  # the fake server found every request valid
