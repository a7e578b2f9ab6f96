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

from agent_cli.ext.background.answering import answer
from agent_cli.ext.background.registry import GONE, process_start
from tests.e2e.helpers import REPO, run_agent
from tests.e2e.worktree_support import make_repo
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until

WAIT_S = 60.0  # a session's process starts the whole agent: slow on a busy 2-core machine


@pytest.fixture
def bg_env(fake_env: dict[str, str], tmp_path: Path) -> Iterator[dict[str, str]]:
    """The fake model's environment with a registry of the test's own; whatever session is
    still running at the end is killed."""
    env = {**fake_env, "XDG_STATE_HOME": str(tmp_path / "state"), "AGENT_SANDBOX": "off"}
    yield env
    for record in records(env):
        pid = record.get("pid")
        if isinstance(pid, int) and process_start(pid) == record.get("process_start"):
            os.kill(pid, signal.SIGKILL)
        Path(record["socket"]).unlink(missing_ok=True)  # a killed session leaves its socket


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
