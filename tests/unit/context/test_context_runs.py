"""The context pipeline through `agent run`: the real SDK, the fake model server (which checks
SPEC §16 on every request).

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

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
from tests.e2e.helpers import json_lines
from tests.fake_model import FakeAnthropic, Script
from tests.fake_model.usage import estimate_tokens
from tests.in_process import run_cli


def stream_events(stdout: str, kind: str) -> list[dict]:
    return [e for e in json_lines(stdout) if e.get("type") == kind]


def _too_long() -> Script:
    return Script().prompt_too_long()


def test_sixty_rounds_stay_within_budget_and_keep_the_prompt_in_view(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    make_workspace(tmp_path)
    summaries = script_session(fake_model)
    proc = run_cli(fake_env, tmp_path, "run", "-p", PROMPT, "--output-format", "stream-json")
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
    assert f.stable_share >= 0.95  # issue 53: 57 of 60 requests keep the cached prefix


def test_one_prompt_too_long_is_recovered_and_the_run_succeeds(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    make_workspace(tmp_path)
    summaries = script_session(fake_model, too_long_at=40)
    proc = run_cli(fake_env, tmp_path, "run", "-p", PROMPT, "--output-format", "stream-json")
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
    proc = run_cli(fake_env, tmp_path, "run", "-p", PROMPT, "--output-format", "json")
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
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hello")
    assert proc.returncode == 1
    assert "too long" in proc.stderr
    assert len(fake_model.bodies()) == 1


def test_unrelated_api_error_fails_without_compaction(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.error(400, message="messages.0: something else is wrong")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hello", "--output-format", "stream-json")
    assert proc.returncode == 1
    assert stream_events(proc.stdout, "compaction") == []
    assert len(fake_model.bodies()) == 1
