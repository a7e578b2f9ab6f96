"""Background sessions end to end (issue 55's foundation): `agent run --bg` as a real process
against the fake model server, its session detached in a process of its own, looked at with
`agent ps --json`, `logs`, `stop`, `rm` from other processes. The fake server checks every
request against SPEC §16 itself, the resumed one after `agent stop` too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_cli.cli.warm.place import LOCK, LOG
from agent_cli.ext.background.answering import answer
from agent_cli.ext.background.registry import GONE, process_start
from agent_cli.ext.background.registry import update as registry_update
from tests.e2e.helpers import REPO, run_agent
from tests.e2e.warm import Warm
from tests.e2e.worktree_support import make_repo
from tests.fake_model import FakeAnthropic, Script
from tests.waiting import wait_until

WAIT_S = 60.0  # a session's process starts the whole agent: slow on a busy 2-core machine


@pytest.fixture
def bg_env(fake_env: dict[str, str], tmp_path: Path) -> Iterator[dict[str, str]]:
    """The fake model's environment with a registry of the test's own, its sessions ending once
    their prompt is answered (not idle for messages); whatever still runs at the end is killed."""
    env = {**fake_env, "XDG_STATE_HOME": str(tmp_path / "state"), "AGENT_SANDBOX": "off"}
    user_settings(env, {"background": {"idle_minutes": 0}})
    yield env
    for record in records(env):
        pid = record.get("pid")
        if isinstance(pid, int) and process_start(pid) == record.get("process_start"):
            os.kill(pid, signal.SIGKILL)
        Path(record["socket"]).unlink(missing_ok=True)  # a killed session leaves its socket


def user_settings(env: dict[str, str], settings: dict[str, Any]) -> None:
    folder = Path(env["HOME"]) / ".config" / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))


def records(env: dict[str, str]) -> list[dict[str, Any]]:
    """The registry's files as the sessions wrote them (no liveness check: `agent ps` does it)."""
    folder = Path(env["XDG_STATE_HOME"]) / "agent" / "background"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def record(env: dict[str, str], name: str) -> dict[str, Any]:
    return next((r for r in records(env) if r["name"] == name), {})


def until_state(env: dict[str, str], name: str, state: str) -> dict[str, Any]:
    wait_until(lambda: record(env, name).get("state") == state, WAIT_S, f"{name}: {state}")
    return record(env, name)


def ps(env: dict[str, str], where: Path, *flags: str) -> dict[str, dict[str, Any]]:
    proc = run_agent(env, where, "ps", "--json", *flags)
    assert proc.returncode == 0, proc.stderr
    return {row["name"]: row for row in json.loads(proc.stdout)}


def launch(env: dict[str, str], workspace: Path, *args: str) -> str:
    proc = run_agent(env, workspace, "run", "--bg", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_finished_sessions_show_done_under_names_from_their_prompt(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("hello, team").text("hello, team")
    bad = run_agent(bg_env, tmp_path, "run", "--bg", "-p", "hi", "--name", "Not a name!")
    assert bad.returncode == 2
    assert "--name" in bad.stderr
    first = launch(bg_env, tmp_path, "-p", "Please say hello to the team")
    second = launch(bg_env, tmp_path, "-p", "Please say hello to the team")  # both at once
    until_state(bg_env, first, "done")
    until_state(bg_env, second, "done")
    assert (first, second) == ("say-hello-team", "say-hello-team-2")
    elsewhere = tmp_path / "home"  # any directory: ps lists this user's sessions
    rows = ps(bg_env, elsewhere)
    assert [rows[n]["state"] for n in (first, second)] == ["done", "done"]
    assert (rows[first]["turns"], rows[first]["last"]) == (1, "hello, team")
    assert "hello, team" in run_agent(bg_env, tmp_path, "logs", first).stdout
    assert run_agent(bg_env, tmp_path, "rm", first).returncode == 0
    assert [r["name"] for r in records(bg_env)] == [second]


def test_an_approval_waits_through_the_terminals_sighup_until_answered(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("write_file", path="out.txt", content="hi").text("wrote it")
    repo = make_repo(tmp_path / "repo")  # it works in a worktree of its own name
    command = f"{sys.executable} -m agent_cli run --bg --name writer --worktree -p 'write out'"
    terminal = subprocess.Popen(  # a shell in a session of its own, as a terminal's
        ["/bin/sh", "-c", f"{command} >/dev/null 2>&1; exec sleep 120"],
        cwd=repo,
        env={**bg_env, "PYTHONPATH": str(REPO)},
        start_new_session=True,
    )
    waiting = until_state(bg_env, "writer", "waiting: approval")
    assert waiting["last"] == "waits for approval: write_file out.txt"
    os.killpg(terminal.pid, signal.SIGHUP)  # the terminal closes
    assert terminal.wait(timeout=WAIT_S) == -signal.SIGHUP
    row = ps(bg_env, tmp_path)["writer"]
    assert (row["state"], row["worktree"]) == ("waiting: approval", "writer")
    follow = subprocess.Popen(  # follows the log until the session ends
        [sys.executable, "-m", "agent_cli", "logs", "writer", "-f"],
        cwd=repo,
        env={**bg_env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )
    answer(waiting["socket"], decision="allow")  # what `agent attach` will do
    until_state(bg_env, "writer", "done")
    assert (repo / ".agent" / "worktrees" / "writer" / "out.txt").read_text() == "hi"
    assert not (repo / "out.txt").exists()
    assert ps(bg_env, tmp_path)["writer"]["turns"] == 2
    followed = follow.communicate(timeout=WAIT_S)[0]
    assert "waits for approval: write_file out.txt" in followed
    assert "assistant: wrote it" in followed
    assert "worktree writer kept" in followed


def test_a_killed_session_is_stopped_and_a_stopped_one_resumes(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    for _ in range(2):
        fake_model.script.tool_use("write_file", path="out.txt", content="hi")
    fake_model.script.text("going on")
    killed, stopped = tmp_path / "killed", tmp_path / "stopped"
    killed.mkdir()
    stopped.mkdir()
    launch(bg_env, killed, "--name", "victim", "-p", "write out.txt")
    launch(bg_env, stopped, "--name", "paused", "-p", "write out.txt")
    victim = until_state(bg_env, "victim", "waiting: approval")
    until_state(bg_env, "paused", "waiting: approval")
    refused = run_agent(bg_env, killed, "rm", "victim")
    assert refused.returncode == 2
    assert "still running" in refused.stderr
    os.kill(victim["pid"], signal.SIGKILL)
    wait_until(lambda: process_start(victim["pid"]) is None, WAIT_S, "the kill")
    rows = ps(bg_env, killed, "--here")  # this workspace's only
    assert set(rows) == {"victim"}
    assert (rows["victim"]["state"], rows["victim"]["reason"]) == ("stopped", GONE)
    proc = run_agent(bg_env, stopped, "stop", "paused")
    assert proc.returncode == 0, proc.stderr
    row = ps(bg_env, tmp_path)["paused"]
    assert (row["state"], row["reason"]) == ("stopped", "stopped with agent stop")
    resumed = run_agent(bg_env, stopped, "run", "--continue", "-p", "go on")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "going on\n"
    assert not (stopped / "out.txt").exists()  # the write was never answered


def shown(workspace: Path, record: dict[str, Any]) -> list[dict[str, Any]]:
    """What a session's transcript says the screen showed (notices, steered texts)."""
    path = workspace / ".transcripts" / f"{record['session_id']}.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line for line in lines if line.get("type") == "shown"]


def notices(workspace: Path, record: dict[str, Any]) -> list[str]:
    return [s["text"] for s in shown(workspace, record) if s["kind"] == "notice"]


def test_a_lead_hands_two_workers_a_task_each_and_hears_both_answers(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    user_settings(
        bg_env, {"background": {"idle_minutes": 10}, "permissions": {"allow": ["start_session"]}}
    )

    def session(needle: str) -> Script:
        return fake_model.route(lambda body: needle in first_user(body) and bool(body["tools"]))

    lead = session("LEAD")
    lead.tool_uses(("start_session", {"name": "w1"}), ("start_session", {"name": "w2"}))
    lead.text("two workers wait")
    lead.tool_uses(
        ("send_message", {"to": "w1", "text": "TASK-A: say A"}),
        ("send_message", {"to": "w2", "text": "TASK-B: say B"}),
    )
    lead.text("handed out").text("noted").text("noted")  # the answers come in one turn or two
    session("TASK-A").text("answer A")
    session("TASK-B").text("answer B")
    launch(bg_env, tmp_path, "--name", "lead", "-p", "LEAD: start two workers")
    until_state(bg_env, "lead", "idle")  # its prompt answered, it waits for messages
    until_state(bg_env, "w1", "idle")  # started with no prompt: idle at once
    sent = run_agent(bg_env, tmp_path, "send", "lead", "hand out the tasks")
    assert sent.returncode == 0, sent.stderr

    def both(body: dict[str, Any]) -> bool:  # a lead's request that has heard both workers
        said = json.dumps(body["messages"])
        return "LEAD" in first_user(body) and "answer A" in said and "answer B" in said

    heard = ('[session "w1" finished; its final answer:]\nanswer A',
             '[session "w2" finished; its final answer:]\nanswer B')  # fmt: skip
    wait_until(lambda: any(both(b) for b in fake_model.bodies()), WAIT_S, "both answers")
    # every record says who started it; each message is in its receiver's transcript as one
    leader = until_state(bg_env, "lead", "idle")
    workers = [record(bg_env, w) for w in ("w1", "w2")]
    assert [w["parent"] for w in workers] == [str(Path(leader["log"]).with_suffix(".json"))] * 2
    told = notices(tmp_path, leader)
    assert "[message from the user, sent with agent send]\nhand out the tasks" in told
    assert all(any(h in t for t in told) for h in heard)
    assert not [s for s in shown(tmp_path, leader) if s["kind"] == "steered"]  # none as typed
    w1_told = notices(tmp_path, workers[0])
    assert w1_told == ['[message from session "lead"; send_message answers it]\nTASK-A: say A']
    stopped = run_agent(bg_env, tmp_path, "stop", "w1")  # an idle session stops as a working one
    assert stopped.returncode == 0, stopped.stderr
    assert record(bg_env, "w1")["state"] == "stopped"


def first_user(body: dict[str, Any]) -> str:
    content = (body.get("messages") or [{}])[0].get("content", "")
    return content if isinstance(content, str) else json.dumps(content)


def test_with_a_warm_process_a_session_is_its_detached_fork(
    fake_model: FakeAnthropic, bg_env: dict[str, str], tmp_path: Path
):
    """A session forked from the warm process (its pages shared) is as detached as a spawned
    one: a session of its own, /dev/null and its log as 0, 1, 2, nothing of the server's (its
    listening socket, lock, log), through the terminal's SIGHUP; `agent stop`'s pidfd ends it,
    and a kill -9 shows as `stopped` (the warm process reaps it: no zombie left `working`)."""
    for _ in range(2):
        fake_model.script.tool_use("write_file", path="out.txt", content="hi")
    warm = Warm(bg_env)
    warm.start()
    try:
        command = f"{sys.executable} -m agent_cli run --bg --name forked -p 'write out'"
        terminal = subprocess.Popen(  # a shell in a session of its own, as a terminal's
            ["/bin/sh", "-c", f"{command} >/dev/null 2>&1; exec sleep 120"],
            cwd=tmp_path,
            env=warm.env,
            start_new_session=True,
        )
        forked = until_state(bg_env, "forked", "waiting: approval")
        pid, server = forked["pid"], (warm.status() or {}).get("pid")
        assert proc_stat(pid)[1:4] == [server, pid, pid]  # parent, group, session
        assert descriptors(pid)[:3] == ["/dev/null", forked["log"], forked["log"]]
        listener = unix_inode(str(warm.folder / "server.sock"))
        servers = {f"socket:[{listener}]", *(str(warm.folder / f) for f in (LOCK, LOG))}
        assert servers.isdisjoint(descriptors(pid))
        os.killpg(terminal.pid, signal.SIGHUP)  # the terminal closes
        assert terminal.wait(timeout=WAIT_S) == -signal.SIGHUP
        assert ps(bg_env, tmp_path)["forked"]["state"] == "waiting: approval"
        launch(warm.env, tmp_path, "--name", "killed", "-p", "write out")
        killed = until_state(bg_env, "killed", "waiting: approval")
        assert proc_stat(killed["pid"])[1] == server
        os.kill(killed["pid"], signal.SIGKILL)
        wait_until(lambda: process_start(killed["pid"]) is None, WAIT_S, "the kill")
        assert ps(bg_env, tmp_path)["killed"]["state"] == "stopped"
        assert not Path(f"/proc/{killed['pid']}").exists()  # reaped, not a zombie
        stopped = run_agent(bg_env, tmp_path, "stop", "forked")
        assert stopped.returncode == 0, stopped.stderr
        assert (record(bg_env, "forked")["state"], record(bg_env, "forked")["reason"]) == (
            "stopped", "stopped with agent stop",
        )  # fmt: skip
        assert "background session: child" in warm.log()
        other = subprocess.run(  # a module not the agent's: no process runs it
            [sys.executable, "-c", NOT_THE_AGENTS, str(tmp_path / "ran")],
            env=warm.env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert (other.stdout, (tmp_path / "ran").exists()) == ("None\n", False)
        assert "the agent's own modules only" in warm.log()
    finally:
        warm.stop()


NOT_THE_AGENTS = """import sys
from agent_cli.cli.warm.detached import fork_detached
statement = f"open({sys.argv[1]!r}, 'w')"  # what `python -m timeit` would run
print(fork_detached("timeit", ["-n", "1", "-r", "1", statement], "/", {}, [0, 1, 2]))
"""


def proc_stat(pid: int) -> list[int | str]:
    """/proc/PID/stat after the command's name: state, then parent, group, session..."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return [fields[0], *(int(f) for f in fields[1:4])]


def descriptors(pid: int) -> list[str]:
    fds = sorted(Path(f"/proc/{pid}/fd").iterdir(), key=lambda p: int(p.name))
    return [str(fd.readlink()) for fd in fds]


def unix_inode(path: str) -> str:
    """The inode of the unix socket bound at `path` (/proc/net/unix)."""
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) == 8 and fields[7] == path:
            return fields[6]
    raise AssertionError(f"no socket bound at {path}")


def test_ps_watch_prints_a_block_per_change_until_ctrl_c(bg_env: dict[str, str], tmp_path: Path):
    folder = Path(bg_env["XDG_STATE_HOME"]) / "agent" / "background"
    folder.mkdir(parents=True, mode=0o700)
    path, out = folder / "watched.json", tmp_path / "watching.txt"
    with subprocess.Popen(["sleep", "120"]) as session, out.open("w") as sink:  # its process
        live = {"pid": session.pid, "process_start": process_start(session.pid)}
        live["socket"] = str(tmp_path / "watched.sock")
        registry_update(path, name="watched", workspace=str(tmp_path), state="working", **live)
        watcher = subprocess.Popen(
            [sys.executable, "-m", "agent_cli", "ps", "--watch"],
            cwd=tmp_path,
            env={**bg_env, "PYTHONPATH": str(REPO)},
            stdout=sink,
        )
        wait_until(lambda: "working" in out.read_text(), WAIT_S, "the first block")
        registry_update(path, state="waiting: approval", last="waits for approval: bash")
        wait_until(lambda: "waiting: approval" in out.read_text(), WAIT_S, "the second block")
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=WAIT_S) == 0
        session.kill()
    blocks = out.read_text().split("\n\n")  # its age going on draws no block of its own
    assert [("working" in b, "waiting: approval" in b) for b in blocks] == [
        (True, False), (False, True),
    ]  # fmt: skip
