"""Done means proven, through `agent run` against the fake model server: an answer's claims
marked against the commands that really ran (real pytest, real edits), a goal in words judged
from evidence alone, and a budget that stops before the request that would pass it.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import json_lines
from tests.e2e.memory_support import episode_json, generator_route
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import has_tools, system_contains
from tests.in_process import run_cli

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider test_v.py"
TEST_FILE = "def test_v():\n    assert open('v.txt').read().strip() == 'ok'\n"
pytestmark = pytest.mark.timeout(240)  # real pytest runs inside: slow on a loaded machine
BYPASS = ("--permission-mode", "bypass", "--output-format", "json")


@pytest.fixture(autouse=True)
def _episodes(fake_model: FakeAnthropic) -> None:
    generator_route(fake_model).respond(lambda body: episode_json(), times=10)


def _run(env: dict[str, str], ws: Path, *args: str) -> tuple[Any, dict[str, Any]]:
    proc = run_cli(env, ws, "run", "-p", "fix the test", *BYPASS, *args)
    assert "Traceback" not in proc.stderr
    (result,) = json_lines(proc.stdout)
    return proc, result


def _ws(root: Path, value: str) -> Path:
    (root / "test_v.py").write_text(TEST_FILE)
    (root / "v.txt").write_text(value + "\n")
    return root


def test_a_claim_after_a_failing_run_is_not_verified(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = _ws(tmp_path, "bad")
    fake_model.script.tool_use("bash", command=PYTEST).text("Done. All tests pass.")
    proc, result = _run(fake_env, ws)
    assert proc.returncode == 0
    (claim,) = result["claims"]
    assert claim["kind"] == "tests"
    assert claim["verified"] is False
    assert claim["text"] == "All tests pass."
    assert "exited 1" in claim["evidence"]
    assert "pytest" in claim["evidence"]
    assert "✗ tests: All tests pass." in proc.stderr  # the mark, on stderr in text runs too


def test_a_later_passing_run_verifies_a_loosely_phrased_claim(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = _ws(tmp_path, "bad")
    script = fake_model.script
    script.tool_use("bash", command=PYTEST).tool_use("write_file", path="v.txt", content="ok\n")
    script.tool_use("bash", command=PYTEST)
    script.text("Fixed v.txt — everything's green now, the test suite passes (1 passed).")
    _, result = _run(fake_env, ws)
    (claim,) = result["claims"]
    assert claim["verified"] is True
    assert "exited 0" in claim["evidence"]


def test_a_passing_run_then_an_edit_is_not_verified(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = _ws(tmp_path, "ok")
    script = fake_model.script
    script.tool_use("bash", command=PYTEST)
    script.tool_use("write_file", path="notes.md", content="tidied\n")
    script.text("I tidied up afterwards; **all tests pass**.")
    _, result = _run(fake_env, ws)
    (claim,) = result["claims"]
    assert claim["verified"] is False
    assert "before the last edit" in claim["evidence"]


def test_claims_in_stream_json(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path):
    ws = _ws(tmp_path, "ok")
    fake_model.script.tool_use("bash", command=PYTEST).text("Tests pass.")
    proc = run_cli(
        fake_env, ws, "run", "-p", "x", "--permission-mode", "bypass",
        "--output-format", "stream-json",
    )  # fmt: skip
    events = json_lines(proc.stdout)
    (marks,) = [e for e in events if e["type"] == "claims"]
    assert [c["verified"] for c in marks["claims"]] == [True]
    assert events[-1]["claims"][0]["verified"] is True


EVALUATOR = "You judge whether a goal has been reached"


def test_a_goal_in_words_is_judged_from_evidence_alone(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    judge = fake_model.route(lambda b: has_tools(False)(b) and system_contains(EVALUATOR)(b))
    judge.text("**Verdict:** NOT MET — nothing checked answer.txt after it was written.")
    judge.text('{"verdict": "met", "reason": "cat answer.txt printed 42 after the edit"}')
    script = fake_model.script
    script.tool_use("write_file", path="answer.txt", content="42\n")
    script.text("PROSE-ONE: I am certain it is done and verified.")
    script.tool_use("bash", command="cat answer.txt").text("PROSE-TWO: checked it.")
    proc, result = _run(fake_env, tmp_path, "--goal", "answer.txt holds 42")
    assert proc.returncode == 0, proc.stderr
    goal = result["goal"]
    assert goal["met"] is True
    assert goal["attempts"] == 2
    assert goal["kind"] == "words"
    first, second = [json.dumps(b) for b in fake_model.bodies() if EVALUATOR in json.dumps(b)]
    assert "+42" in first  # the turn's diff
    assert "answer.txt" in first
    assert "(no command ran since the last change)" in first
    assert "cat answer.txt" in second
    assert "exit code: 0" in second
    for body in (first, second):
        assert "PROSE-ONE" not in body
        assert "PROSE-TWO" not in body
        assert "certain" not in body
    main = [b for b in fake_model.bodies() if b.get("tools")]
    assert "nothing checked answer.txt after it was written" in json.dumps(main[2]["messages"][-1])
    assert "cat answer.txt printed 42 after the edit" in proc.stderr


def test_max_cost_stops_before_the_request_that_would_pass_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    config = Path(fake_env["HOME"]) / ".config" / "agent"
    config.mkdir(parents=True)
    price = {"input": 0, "output": 0, "cache_read": 1.0, "cache_write": 0}
    (config / "settings.json").write_text(json.dumps({"prices": {"claude-sonnet-4-6": price}}))
    usage = {"input_tokens": 0, "output_tokens": 5, "cache_read_input_tokens": 10_000,
             "cache_creation_input_tokens": 0}  # fmt: skip
    for n in range(6):  # $0.01 a request: the third would take the session to $0.03
        fake_model.script.tool_use("bash", command=f"echo {n}", usage=usage)
    proc = run_cli(
        fake_env, tmp_path, "run", "-p", "loop", "--max-cost", "0.025",
        "--permission-mode", "bypass", "--output-format", "json",
    )  # fmt: skip
    assert proc.returncode == 1
    main = [b for b in fake_model.bodies() if b.get("tools")]
    assert len(main) == 2
    (result,) = json_lines(proc.stdout)
    assert result["cost_usd"] == pytest.approx(0.02)
    assert "budget reached" in proc.stderr
    assert "--max-cost 0.025" in proc.stderr
    assert "Traceback" not in proc.stderr
