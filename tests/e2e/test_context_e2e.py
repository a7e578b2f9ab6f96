"""The context pipeline end to end: the real CLI, the real SDK, the fake model server (which checks
SPEC §16 on every request)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.context.tokens import resolve_thresholds
from agent_cli.core import errors
from agent_cli.core.settings.schema import parse_settings
from tests.e2e.context_session import (
    PROMPT,
    ROUNDS,
    SETTINGS,
    figures,
    main_bodies,
    make_workspace,
    script_session,
    user_texts,
)
from tests.e2e.helpers import REPO, json_lines, run_agent
from tests.fake_model import FakeAnthropic, Script
from tests.fake_model.usage import estimate_tokens
from tests.waiting import wait_until


def stream_events(stdout: str, kind: str) -> list[dict]:
    return [e for e in json_lines(stdout) if e.get("type") == kind]


def test_sixty_rounds_stay_within_budget_and_keep_the_prompt_in_view(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    make_workspace(tmp_path)
    summaries = script_session(fake_model)
    proc = run_agent(fake_env, tmp_path, "run", "-p", PROMPT, "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    bodies = main_bodies(fake_model)
    assert len(bodies) == ROUNDS + 1
    budget = resolve_thresholds(parse_settings(SETTINGS)).summary_threshold
    assert max(estimate_tokens(b) for b in bodies) <= budget
    for body in bodies:
        assert any(PROMPT in text for text in user_texts(body))
    archives = list((tmp_path / ".transcripts" / "archive").glob("*.jsonl"))
    assert archives
    stages = [e["stage"] for e in stream_events(proc.stdout, "compaction")]
    assert "snip" in stages
    assert "micro" in stages
    assert summaries.served == 0  # the steps without a model call sufficed
    f = figures(bodies)
    assert f.share_of_naive <= 0.40
    assert f.stable_share >= 0.90


def test_one_prompt_too_long_is_recovered_and_the_run_succeeds(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    make_workspace(tmp_path)
    summaries = script_session(fake_model, too_long_at=40)
    proc = run_agent(fake_env, tmp_path, "run", "-p", PROMPT, "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert [e["stage"] for e in stream_events(proc.stdout, "compaction")].count("reactive") == 1
    assert summaries.served == 1
    (result,) = stream_events(proc.stdout, "result")
    assert result["is_error"] is False
    assert result["result"] == "None of them mentions a kiwi."
    retry = main_bodies(fake_model)[41]
    assert any(PROMPT in text for text in user_texts(retry))


def test_prompt_too_long_on_every_request_fails_after_a_bounded_number_of_requests(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    make_workspace(tmp_path)
    for i in range(10):
        fake_model.script.tool_use("read_file", path=f"f{i:02d}.txt")
    fake_model.script.respond(lambda body: _too_long(), times=10)
    fake_model.route(lambda body: not body.get("tools")).respond(lambda body: _too_long(), times=5)
    proc = run_agent(fake_env, tmp_path, "run", "-p", PROMPT, "--output-format", "json")
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["is_error"] is True
    assert errors.TOO_LONG_HINT in result["error"]
    assert len(fake_model.bodies()) == 10 + 3  # the request, one summary attempt, one retry
    assert "Traceback" not in proc.stderr


def test_prompt_too_long_on_the_first_request_fails_at_once(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.respond(lambda body: _too_long(), times=5)
    proc = run_agent(fake_env, tmp_path, "run", "-p", "hello")
    assert proc.returncode == 1
    assert "too long" in proc.stderr
    assert len(fake_model.bodies()) == 1


def _too_long() -> Script:
    return Script().prompt_too_long()


def test_unrelated_api_error_fails_without_compaction(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.error(400, message="messages.0: something else is wrong")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "hello", "--output-format", "stream-json")
    assert proc.returncode == 1
    assert stream_events(proc.stdout, "compaction") == []
    assert len(fake_model.bodies()) == 1


@pytest.mark.usefixtures("sandbox_off")  # it kills the group `echo $$` names: the host's pid
def test_resume_after_sigkill_during_a_tool_call_sends_a_valid_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text(
        json.dumps({"context": {"snip_trigger": 6, "snip_target": 4}})
    )
    (tmp_path / "a.txt").write_text("alpha\n")
    for _ in range(4):
        fake_model.script.tool_use("read_file", path="a.txt")
    fake_model.script.tool_use("bash", command="echo $$ > started.txt; sleep 30")
    env = {**fake_env, "PYTHONPATH": str(REPO)}
    args = ["run", "-p", "start", "--permission-mode", "bypass"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started = tmp_path / "started.txt"
    wait_until(lambda: started.exists() and started.read_text().endswith("\n"), 30, "bash started")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    group = int(started.read_text())
    assert group > 1
    assert group != os.getpgrp()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)  # the orphaned command
    sent_before = len(fake_model.bodies())

    fake_model.script.text("continuing")
    resumed = run_agent(fake_env, tmp_path, "run", "--continue", "-p", "go on")
    assert resumed.returncode == 0, resumed.stderr
    first = fake_model.bodies()[sent_before]
    messages = first["messages"]
    assert "[Context snipped: " in json.dumps(messages[0])  # rebuilt after the compaction
    bash_call = messages[-2]["content"][-1]
    assert bash_call["name"] == "bash"
    results = messages[-1]["content"]
    assert results[0]["tool_use_id"] == bash_call["id"]
    assert results[0]["is_error"] is True
    assert "interrupted" in results[0]["content"]
    assert results[-1]["text"] == "go on"
