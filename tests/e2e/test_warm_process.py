"""Issue 25: the warm process's own life: a terminal's Ctrl-C, Ctrl-Z and size reach the child,
a client killed with SIGKILL takes its child down, two runs at once, an upgrade while it runs,
a stale socket, a process killed mid-start, the first run starting it and the idle exit."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from tests.e2e.helpers import REPO, last_user_blocks, run_agent
from tests.e2e.warm import Warm
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until, written_number

BYPASS = ("--permission-mode", "bypass")


def state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return "gone"


def gone(pid: int) -> bool:
    return state(pid) in ("gone", "Z")


def spawn(warm: Warm, workspace: Path, *args: str, rows: int = 24, cols: int = 80) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable, ["-m", "agent_cli", "run", *args], cwd=str(workspace), env=warm.env,
        dimensions=(rows, cols), encoding="utf-8", timeout=30,
    )  # fmt: skip


def last_result(fake_model: FakeAnthropic) -> str:
    (block,) = last_user_blocks(fake_model.bodies()[-1])
    return str(block["content"])


@pytest.mark.usefixtures("sandbox_off")  # it tracks pids the command prints ($PPID, $!)
def test_ctrl_c_in_a_terminal_ends_the_run_with_130(
    fake_model: FakeAnthropic, warm: Warm, tmp_path: Path
):
    warm.start()
    fake_model.script.tool_use("bash", command="echo $PPID > agent.pid; sleep 300").text("never")
    child = spawn(warm, tmp_path, "-p", "go", *BYPASS)
    agent = written_number(tmp_path / "agent.pid", 30, "the tool to start")
    assert agent != child.pid  # the run is the warm process's child, not the client
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, child.before
    assert "interrupted" in str(child.before)
    assert warm.served() == 1
    wait_until(lambda: gone(agent), 10, "the run's process to end")


PROBE = """import os
for n in (0, 1, 2):
    fd = os.open(f"/proc/{os.getppid()}/fd/{n}", os.O_RDONLY)
    print("fd", n, os.isatty(fd), tuple(os.get_terminal_size(fd)))
"""


@pytest.mark.usefixtures("sandbox_off")  # it tracks pids the command prints ($PPID, $!)
def test_the_child_sees_the_clients_terminal_and_its_new_size(
    fake_model: FakeAnthropic, warm: Warm, tmp_path: Path
):
    """The tool's parent is the run's process: its descriptors are the client's terminal."""
    warm.start()
    (tmp_path / "probe.py").write_text(PROBE)
    wait = "echo $PPID > agent.pid; while [ ! -f go ]; do sleep 0.02; done"
    fake_model.script.tool_use("bash", command=f"{wait}; exec python3 probe.py").text("sized")
    child = spawn(warm, tmp_path, "-p", "go", *BYPASS, rows=30, cols=90)
    written_number(tmp_path / "agent.pid", 30, "the tool to start")
    child.setwinsize(40, 120)  # the client gets SIGWINCH; the child reads the same terminal
    (tmp_path / "go").touch()
    child.expect("sized")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    result = last_result(fake_model)
    for n in (0, 1, 2):
        assert f"fd {n} True (120, 40)" in result, result


@pytest.mark.usefixtures("sandbox_off")  # it tracks pids the command prints ($PPID, $!)
def test_ctrl_z_stops_the_child_and_fg_continues_it(
    fake_model: FakeAnthropic, warm: Warm, tmp_path: Path
):
    """Under a job-control shell, as a person runs it: Ctrl-Z, then `fg`."""
    warm.start()
    wait = "echo $PPID > agent.pid; while [ ! -f go ]; do sleep 0.02; done; echo resumed"
    fake_model.script.tool_use("bash", command=wait).text("finished")
    shell = pexpect.spawn(
        "bash", ["--norc", "--noprofile", "-i"], cwd=str(tmp_path),
        env={**warm.env, "PYTHONPATH": str(REPO), "PS1": "$ "}, encoding="utf-8", timeout=30,
    )  # fmt: skip
    shell.sendline(f"{sys.executable} -m agent_cli run -q -p go {' '.join(BYPASS)}")
    agent = written_number(tmp_path / "agent.pid", 30, "the tool to start")
    shell.sendcontrol("z")
    shell.expect("Stopped")
    wait_until(lambda: state(agent) == "T", 10, "the run to stop")
    shell.sendline("fg")
    wait_until(lambda: state(agent) != "T", 10, "the run to continue")
    (tmp_path / "go").touch()
    shell.expect("finished")
    shell.sendline("echo EXIT=$?")  # a stopped job's list is dropped: the status is asked after
    shell.expect("EXIT=0")
    shell.sendline("exit")
    shell.expect(pexpect.EOF)
    assert "resumed" in last_result(fake_model)
    assert warm.served() == 1


def popen_run(warm: Warm, workspace: Path) -> subprocess.Popen[bytes]:
    """`agent run -p go` in bypass mode, through `warm`'s runtime directory, its output dropped."""
    env = {**warm.env, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "agent_cli", "run", "-p", "go", *BYPASS]
    return subprocess.Popen(
        argv, cwd=workspace, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


@pytest.mark.usefixtures("sandbox_off")  # it tracks pids the command prints ($PPID, $!)
def test_a_client_killed_with_sigkill_takes_its_child_down(
    fake_model: FakeAnthropic, warm: Warm, fake_env: dict[str, str], tmp_path: Path
):
    warm.start()
    command = "echo $PPID > agent.pid; sleep 300 & echo $! > sleep.pid; wait"
    fake_model.script.tool_use("bash", command=command).text("never")
    proc = popen_run(warm, tmp_path)
    sleeper = written_number(tmp_path / "sleep.pid", 30, "the tool to start")
    agent = written_number(tmp_path / "agent.pid")
    proc.kill()
    proc.wait()
    wait_until(lambda: gone(agent), 15, "the orphaned run to end")
    wait_until(lambda: gone(sleeper), 15, "its tool to be killed")
    (transcript,) = (tmp_path / ".transcripts").glob("*.jsonl")
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    last = next(r for r in reversed(records) if r["type"] == "message")
    # ended as an in-process run killed with SIGKILL there is left (issue 40): nothing written
    # after its client's death, the call without a result (a resume answers it "interrupted")
    assert last["message"]["content"][0]["type"] == "tool_use"


def test_two_runs_at_once(fake_model: FakeAnthropic, warm: Warm, tmp_path: Path):
    warm.start()
    fake_model.script.text("same answer").text("same answer")
    env = {**warm.env, "PYTHONPATH": str(REPO)}
    procs = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        cmd = [sys.executable, "-m", "agent_cli", "run", "-p", name]
        out, err = subprocess.PIPE, subprocess.PIPE
        procs.append(
            subprocess.Popen(cmd, cwd=tmp_path / name, env=env, stdout=out, stderr=err, text=True)
        )
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert [o for o, _ in outs] == ["same answer\n", "same answer\n"]
    assert warm.served() == 2
    prompts = sorted(b["messages"][0]["content"][0]["text"] for b in fake_model.bodies())
    assert prompts == ["one", "two"]


def test_an_upgrade_while_it_runs_retires_it(fake_model: FakeAnthropic, warm: Warm, tmp_path: Path):
    """An editable install's upgrade changes the sources' modification times: the old process
    retires on the next run, which runs in-process (the new code) and starts a new one. The
    install upgraded is a copy of the package: touching the checkout itself would retire the
    warm processes of every other test running beside this one."""
    install = tmp_path / "install"
    for part in ("agent_cli", "prompts"):  # copy2: the .pyc stay valid
        shutil.copytree(REPO / part, install / part)
    warm.env["PYTHONPATH"] = str(install)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "agent_cli", *args]
        return subprocess.run(
            argv, cwd=tmp_path, env=warm.env, capture_output=True, text=True, timeout=60
        )

    warm.start()
    old = warm.status()
    assert old is not None
    assert str(install) in old["key"]  # the copy is what it serves
    fake_model.script.text("new code").text("new process")
    source = install / "agent_cli" / "cli" / "warm" / "__init__.py"
    os.utime(source, ns=(source.stat().st_atime_ns, time.time_ns()))
    proc = run("run", "-p", "hi")
    assert (proc.returncode, proc.stdout) == (0, "new code\n"), proc.stderr
    wait_until(lambda: gone(old["pid"]), 15, "the old process to retire")
    warm.wait_serving()
    new = warm.status()
    assert new is not None
    assert new["pid"] != old["pid"]
    assert new["key"] != old["key"]
    again = run("run", "-p", "hi")
    assert again.stdout == "new process\n"
    assert warm.served() == 1
    assert "another version" in warm.log()


def test_a_stale_socket_file_falls_back_and_is_replaced(
    fake_model: FakeAnthropic, warm: Warm, tmp_path: Path
):
    warm.folder.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(warm.folder / "server.sock"))  # bound, never listening: a crashed server's
    stale.close()
    fake_model.script.text("in-process").text("warm")
    proc = run_agent(warm.env, tmp_path, "run", "-q", "-p", "hi")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "in-process\n", "")
    warm.wait_serving()  # the run started one, which took the stale socket's place
    assert run_agent(warm.env, tmp_path, "run", "-p", "hi").stdout == "warm\n"
    assert warm.served() == 1


def test_killed_mid_start_the_run_falls_back(fake_model: FakeAnthropic, warm: Warm, tmp_path: Path):
    warm.start(wait=False)
    wait_until(lambda: warm.server_pids(), 10, "the warm process to start")
    (pid,) = warm.server_pids()
    os.kill(pid, signal.SIGKILL)  # mid warm-up: no socket yet, the lock dies with it
    wait_until(lambda: gone(pid), 10, "the warm process to die")
    fake_model.script.text("still answered")
    proc = run_agent(warm.env, tmp_path, "run", "-q", "-p", "hi", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "still answered"
    assert proc.stderr == ""  # the fallback is logged, never shown


def test_the_first_run_starts_it_and_it_exits_when_idle(
    fake_model: FakeAnthropic, warm: Warm, tmp_path: Path
):
    config = Path(warm.env["HOME"]) / ".config" / "agent"
    config.mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps({"server": {"idle_minutes": 0.05}}))
    fake_model.script.text("first").text("second")
    assert run_agent(warm.env, tmp_path, "run", "-p", "hi").stdout == "first\n"
    warm.wait_serving()
    assert run_agent(warm.env, tmp_path, "run", "-p", "hi").stdout == "second\n"
    (pid,) = warm.server_pids()
    wait_until(lambda: gone(pid), 30, "the idle warm process to exit")
    assert not (warm.folder / "server.sock").exists()
    assert "exiting: idle" in warm.log()


@pytest.mark.usefixtures("sandbox_off")  # it waits on a file the command writes
def test_an_in_process_run_killed_with_sigkill_still_leaves_one(
    fake_model: FakeAnthropic, warm: Warm, tmp_path: Path
):
    """No warm process: the run goes in-process and starts one at once, which warms up only
    once the run has ended, however it ends (before, every run killed before its end left
    none, and every run after it went in-process too)."""
    fake_model.script.tool_use("bash", command="touch started; sleep 300")
    proc = popen_run(warm, tmp_path)
    wait_until(lambda: (tmp_path / "started").exists(), 30, "the tool to start")
    assert len(warm.server_pids()) == 1  # started,
    assert warm.status() is None  # but not serving beside the run
    proc.kill()
    proc.wait()
    warm.wait_serving()
    fake_model.script.text("warm")
    assert run_agent(warm.env, tmp_path, "run", "-p", "hi").stdout == "warm\n"
    assert warm.served() == 1


def test_two_starting_at_once_leave_one_serving(warm: Warm):
    warm.start(wait=False)
    warm.start(wait=False)  # before the first took its lock, or after: the lock decides
    warm.wait_serving()
    wait_until(lambda: len(warm.server_pids()) == 1, 15, "the second one to give up")
    status = warm.status()
    assert status is not None
    assert warm.server_pids() == [status["pid"]]
