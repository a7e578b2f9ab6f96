"""Issue 40 item 3 and issue 34 item 4: one writer per session, and forks. Two runs that
continue one session at once make two sessions, each one conversation; `--fork-session` forks
on purpose. Real processes, both in-process and through the warm process."""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.session.resume import fold, session_files
from tests.e2e.helpers import json_lines
from tests.e2e.warm import Via
from tests.fake_model import FakeAnthropic
from tests.fake_model.script import Reply


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return " ".join(str(b.get("text", "")) for b in content if b.get("type") == "text")


BOTH = threading.Barrier(2)


def _answer(body: dict[str, Any]) -> Reply | str:
    """A prompt `X1` waits for the other run's (so the two overlap, however loaded the
    machine), runs `sleep 2`, then answers `done X1`."""
    last = body["messages"][-1]
    blocks = last["content"] if isinstance(last["content"], list) else []
    if any(b.get("type") == "tool_result" for b in blocks):
        asked = next(_text(m) for m in reversed(body["messages"]) if _text(m).strip())
        return f"done {asked.split()[-1]}"
    prompt = _text(last).split()[-1]
    if prompt.endswith("1"):
        with contextlib.suppress(threading.BrokenBarrierError):
            BOTH.wait(timeout=60)
        call = {"type": "tool_use", "id": f"toolu_{prompt}", "name": "bash",
                "input": {"command": "sleep 2"}}  # fmt: skip
        return Reply([call])
    return f"done {prompt}"


def _session_of(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr
    return str(json_lines(proc.stdout)[-1]["session_id"])


def _run(via: Via, ws: Path, *args: str) -> str:
    return _session_of(via.run(ws, "run", "--output-format", "json", *args))


@pytest.mark.timeout(300)  # seven runs, two at once, on a loaded machine
def test_two_concurrent_continues_make_two_sessions_each_one_conversation(
    fake_model: FakeAnthropic, via: Via, tmp_path: Path
):
    BOTH.reset()
    fake_model.script.respond(_answer, times=12)
    parent = _run(via, tmp_path, "-p", "A0", "--permission-mode", "bypass")
    argv = ("run", "--continue", "--output-format", "json", "--permission-mode", "bypass")
    procs = [
        via.popen(tmp_path, *argv, "-p", prompt, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for prompt in ("A1", "B1")
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    ids = [
        _session_of(subprocess.CompletedProcess([], p.returncode, *o))
        for p, o in zip(procs, outs, strict=True)
    ]
    assert len(set(ids)) == 2, ids
    assert parent in ids
    (forked,) = set(ids) - {parent}
    said = outs[ids.index(forked)][1]
    assert f"Session {parent} is in use by another run (pid " in said
    assert forked in said
    for sid in ids:  # each transcript one conversation: the parent's, then one run's
        prompt = ("A1", "B1")[ids.index(sid)]
        state = fold(Paths(tmp_path).transcript(sid))
        texts = [_text(m) for m in state.messages]
        assert texts == ["A0", "done A0", prompt, "", "", f"done {prompt}"], texts
    for sid in ids:  # both resumable, their requests valid (§16: the fixture checks)
        _run(via, tmp_path, "--resume", sid, "-p", "C2")
        sent = fake_model.bodies()[-1]["messages"]
        assert [_text(m) for m in sent][:2] == ["A0", "done A0"]
        assert _text(sent[-1]) == "C2"
    assert not fake_model.violations


@pytest.mark.timeout(180)
def test_fork_session_goes_on_in_a_new_session_and_leaves_the_parent(
    fake_model: FakeAnthropic, via: Via, tmp_path: Path
):
    fake_model.script.respond(_answer, times=4)
    parent = _run(via, tmp_path, "-p", "A0")
    transcript = Paths(tmp_path).transcript(parent)
    before = transcript.read_bytes()
    proc = via.run(tmp_path, "run", "--continue", "--fork-session", "-p", "F0")
    assert proc.returncode == 0, proc.stderr
    (fork,) = {p.stem for p in session_files(Paths(tmp_path))} - {parent}
    assert f"agent: Forked session {parent} into {fork}." in proc.stderr
    sent = fake_model.bodies()[-1]["messages"]
    assert [_text(m) for m in sent] == ["A0", "done A0", "F0"]  # exactly the parent's, then ours
    assert transcript.read_bytes() == before
    head = json.loads(Paths(tmp_path).transcript(fork).read_text().splitlines()[0])
    assert head["forked_from"] == parent
    again = via.run(tmp_path, "run", "--resume", parent, "-p", "P1x")
    assert again.returncode == 0, again.stderr
    assert [_text(m) for m in fake_model.bodies()[-1]["messages"]] == ["A0", "done A0", "P1x"]


@pytest.mark.parametrize("command", ["run", "chat"])
def test_fork_session_alone_is_a_usage_error(
    fake_env: dict[str, str], tmp_path: Path, command: str
):
    via = Via("in-process", fake_env, None)
    proc = (
        via.run(tmp_path, command, "--fork-session", "-p", "x")
        if command == "run"
        else (via.run(tmp_path, command, "--fork-session", stdin=""))
    )
    assert proc.returncode == 2
    assert "--fork-session needs --continue or --resume" in proc.stderr
    assert "Traceback" not in proc.stderr
