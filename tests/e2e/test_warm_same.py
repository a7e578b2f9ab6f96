"""Issue 25: `agent run` behaves the same in-process and through the warm process: exit codes,
output formats, resume, permissions, subagents, piped stdin, environment, directory and umask,
and SIGTERM / SIGHUP as the hardening issue has them. Every test runs both ways (`via`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import json_lines, last_user_blocks
from tests.e2e.warm import Via
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import system_contains
from tests.waiting import wait_until, written_number


def tool_result(body: dict[str, Any]) -> str:
    (block,) = last_user_blocks(body)
    assert block["type"] == "tool_result"
    content = block["content"]
    return content if isinstance(content, str) else json.dumps(content)


def test_exit_codes_0_1_2(fake_model: FakeAnthropic, via: Via, tmp_path: Path):
    fake_model.script.text("Hello from the model.")
    ok = via.run(tmp_path, "run", "-p", "say hello")
    assert (ok.returncode, ok.stdout) == (0, "Hello from the model.\n"), ok.stderr
    (tmp_path / "a.txt").write_text("a")
    for _ in range(2):
        fake_model.script.tool_use("read_file", path="a.txt")
    capped = via.run(tmp_path, "run", "-p", "loop", "--max-turns", "1")
    assert capped.returncode == 1
    assert "max-turns" in capped.stderr
    bad = via.run(tmp_path, "run", "-p", "hi", "--output-format", "yaml")
    assert bad.returncode == 2
    assert "--output-format" in bad.stderr
    assert "Traceback" not in ok.stderr + capped.stderr + bad.stderr


def test_stream_json_and_resume(fake_model: FakeAnthropic, via: Via, tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_use("read_file", path="a.txt").text("fine").text("again")
    first = via.run(tmp_path, "run", "-p", "x", "--output-format", "stream-json")
    assert first.returncode == 0, first.stderr
    lines = json_lines(first.stdout)
    assert lines[0]["type"] == "init"
    assert lines[-1]["type"] == "result"
    assert lines[-1]["is_error"] is False
    session = lines[-1]["session_id"]
    again = via.run(tmp_path, "run", "--resume", session[:-2], "-p", "y")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "again\n"
    assert len(fake_model.bodies()[-1]["messages"]) == 5


def test_piped_stdin_prompt(fake_model: FakeAnthropic, via: Via, tmp_path: Path):
    fake_model.script.text("read it")
    proc = via.run(tmp_path, "run", stdin="a prompt from a pipe\n")
    assert proc.returncode == 0, proc.stderr
    (body,) = fake_model.bodies()
    assert body["messages"][0]["content"][0]["text"] == "a prompt from a pipe\n"


def test_permissions_deny_an_edit_headless(fake_model: FakeAnthropic, via: Via, tmp_path: Path):
    fake_model.script.tool_use("write_file", path="new.txt", content="x").text("could not")
    proc = via.run(tmp_path, "run", "-p", "write", "--permission-mode", "plan")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "new.txt").exists()
    assert "plan" in tool_result(fake_model.bodies()[1]).lower()


def test_a_subagent_note_reaches_the_parent(fake_model: FakeAnthropic, via: Via, tmp_path: Path):
    fake_model.script.tool_use("task", description="look", prompt="Look at nothing.")
    fake_model.script.text("done")
    child = fake_model.route(system_contains("You are a subagent"))
    child.tool_use("submit_note", conclusion="Nothing there.", evidence=[], confidence="high")
    proc = via.run(tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    assert "Nothing there." in tool_result(fake_model.bodies()[-1])
    assert list((tmp_path / "notes").glob("*.json"))


def test_env_cwd_and_umask_are_the_clients(fake_model: FakeAnthropic, via: Via, tmp_path: Path):
    sub = tmp_path / "deep" / "er"
    sub.mkdir(parents=True)
    command = "echo VAR=$WARM_PROBE; pwd; umask; touch made; stat -c %a made"
    fake_model.script.tool_use("bash", command=command).text("ok")
    via.env = {**via.env, "WARM_PROBE": "from-the-client"}
    proc = via.popen(
        sub, "run", "-p", "go", "--permission-mode", "bypass", "--workspace", str(tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, umask=0o027,
    )  # fmt: skip
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    via.went_its_way()
    result = tool_result(fake_model.bodies()[1])
    assert "VAR=from-the-client" in result
    assert "0027" in result
    assert "640" in result  # the file the tool made, under the client's umask
    assert str(tmp_path) in result  # bash runs in the workspace the client named
    assert (tmp_path / "made").exists()


@pytest.mark.usefixtures("sandbox_off")  # it tracks pids the command prints ($PPID, $!)
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_an_ending_signal_ends_the_run_as_ctrl_c_does(
    fake_model: FakeAnthropic, via: Via, tmp_path: Path, signum: int, code: int
):
    command = "sleep 300 & echo $! > child.pid; echo started > started; wait"
    fake_model.script.tool_use("bash", command=command).text("never")
    proc = via.popen(
        tmp_path, "run", "-p", "go", "--permission-mode", "bypass", "--output-format", "json",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        sleeper = written_number(tmp_path / "child.pid", 30, "the tool to start")
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    via.went_its_way()
    result = json.loads(out)
    assert result["is_error"] is True
    assert signal.Signals(signum).name in result["error"]
    wait_until(lambda: not _alive(sleeper), 10, "the tool's child to be killed")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, ProcessLookupError):
        return False
    return state != "Z"
