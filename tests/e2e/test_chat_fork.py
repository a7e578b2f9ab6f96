"""Issue 34 item 4 and issue 40 item 3 in `agent chat`: /fork goes on in a new session with the
same history; `agent chat --continue` of a session another chat holds forks it and says so on
screen; `--fork-session` forks on purpose."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.core.files.paths import Paths
from agent_cli.session.resume import fold, session_files
from tests.e2e.helpers import REPO, run_agent
from tests.e2e.pty_screen import ChatTerm
from tests.e2e.test_chat_resume import SESSION, write_session
from tests.fake_model import FakeAnthropic
from tests.waiting import wait_until


def _texts(messages: list[dict]) -> list[str]:
    out = []
    for m in messages:
        content = m["content"]
        out.append(content if isinstance(content, str) else content[0].get("text", ""))
    return out


def test_fork_in_chat_goes_on_in_a_new_session_with_the_same_history(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("one").text("two")
    proc = run_agent(fake_env, tmp_path, "chat", stdin="Q0\n/fork\nQ1\n")
    assert proc.returncode == 0, proc.stderr
    ids = {p.stem for p in session_files(Paths(tmp_path))}
    assert len(ids) == 2
    said = next(line for line in proc.stdout.splitlines() if line.startswith("Forked session"))
    parent, fork = said.split()[2], said.split()[4]
    assert ids == {parent, fork}
    assert f"(the previous one: --resume {parent})" in said
    assert _texts(fake_model.bodies()[1]["messages"]) == ["Q0", "one", "Q1"]
    assert _texts(fold(Paths(tmp_path).transcript(parent)).messages) == ["Q0", "one"]
    assert _texts(fold(Paths(tmp_path).transcript(fork)).messages) == ["Q0", "one", "Q1", "two"]
    assert f"--resume {fork}" in proc.stderr  # the session it ended in


@pytest.mark.timeout(120)
def test_continue_of_a_session_another_chat_holds_forks_it_on_screen(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    write_session(tmp_path)
    env = {**fake_env, "PYTHONPATH": str(REPO)}
    holder = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", "chat", "--resume", SESSION],
        cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        owners = Paths(tmp_path).transcripts / "owners" / f"{SESSION}.lock"
        wait_until(lambda: owners.exists() and owners.read_text().strip() == str(holder.pid), 60)
        term = ChatTerm(fake_env, tmp_path, "--continue", columns=80, lines=24)
        try:
            said = f"Session {SESSION} is in use by another run (pid {holder.pid})"
            screen = term.wait_for(lambda text: said in " ".join(text.split()))
            assert "plan the fix" in screen  # the history, redrawn as a resume redraws it
        finally:
            term.close()
    finally:
        assert holder.stdin is not None
        holder.communicate("", timeout=60)
    forks = {p.stem for p in session_files(Paths(tmp_path))} - {SESSION}
    assert len(forks) == 1
    (fork,) = forks
    assert _texts(fold(Paths(tmp_path).transcript(fork)).messages) == ["plan the fix", "Planned."]
