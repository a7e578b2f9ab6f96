"""`agent run --goal-check`: a goal pursued turn after turn until its check passes, or a limit
ends it. The real CLI and SDK against the fake model server; the check is a real command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import json_lines, run_agent
from tests.e2e.memory_support import episode_json, generator_route
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.timeout(240)  # several turns and real checks each
CHECK = "python3 check.py"
CHECKER = """\
import sys
value = open("answer.txt").read().strip() if __import__("os").path.exists("answer.txt") else ""
if value != "42":
    print(f"expected 42, got {value!r}")
    sys.exit(3)
print("ok: 42")
"""


@pytest.fixture(autouse=True)
def _episodes(fake_model: FakeAnthropic) -> None:
    """A goal's turns may write an episode (a topic shift): the generator has its own script."""
    generator_route(fake_model).respond(lambda body: episode_json(), times=10)


def _workspace(root: Path) -> Path:
    (root / "check.py").write_text(CHECKER)
    return root


def _main(fake_model: FakeAnthropic) -> list[dict]:
    """The agent's own requests (they carry tools; episodes and evaluators do not)."""
    return [body for body in fake_model.bodies() if body.get("tools")]


def _texts(body: dict) -> str:
    content = body["messages"][-1]["content"]
    return "\n".join(b.get("text", "") or str(b.get("content", "")) for b in content)


def test_check_fails_once_then_passes(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = _workspace(tmp_path)
    script = fake_model.script
    script.tool_use("write_file", path="answer.txt", content="41\n").text("Fixed it, all good.")
    script.tool_use("write_file", path="answer.txt", content="42\n").text("Now it is 42.")
    proc = run_agent(
        fake_env, ws, "run", "-p", "make check.py pass", "--goal-check", CHECK,
        "--permission-mode", "accept-edits", "--output-format", "json",
        timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (result,) = json_lines(proc.stdout)
    goal = result["goal"]
    assert goal["met"] is True
    assert goal["attempts"] == 2
    assert goal["check"] == CHECK
    assert goal["last_exit"] == 0
    assert "ok: 42" in goal["last_output"]
    bodies = _main(fake_model)
    assert len(bodies) == 4
    first_of_second_turn = _texts(bodies[2])
    assert "exit code 3" in first_of_second_turn
    assert "expected 42, got '41'" in first_of_second_turn
    assert CHECK in _texts(bodies[0])  # the model is told what will be checked
    assert "Traceback" not in proc.stderr


def test_never_passing_goal_stops_at_max_turns(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = _workspace(tmp_path)
    for n in range(5):
        fake_model.script.text(f"Attempt {n}: I think it works now.")
    proc = run_agent(
        fake_env, ws, "run", "-p", "make check.py pass", "--goal-check", CHECK,
        "--max-turns", "3", "--output-format", "json",
        timeout=180,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    (result,) = json_lines(proc.stdout)
    goal = result["goal"]
    assert goal["met"] is False
    assert goal["attempts"] == 3
    assert goal["state"] == "unmet"
    assert goal["last_exit"] == 3
    assert "--max-turns 3" in goal["reason"]
    assert len(_main(fake_model)) == 3
    assert result["is_error"] is True


def test_the_model_gives_up_with_a_reason(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = _workspace(tmp_path)
    fake_model.script.text("Tried.")  # a plain stop: the check runs and the goal goes on
    fake_model.script.text(
        "I looked again.\n\n**Goal impossible** — check.py reads a file I may not write."
    )
    proc = run_agent(fake_env, ws, "run", "-p", "go", "--goal-check", CHECK)
    assert proc.returncode == 1
    assert "goal impossible: check.py reads a file I may not write" in proc.stderr
    assert len(_main(fake_model)) == 2
    assert "◎ goal pursuing — 1 attempt, last exit 3" in proc.stderr


def test_goal_flags_are_checked(fake_env: dict[str, str], tmp_path: Path):
    both = run_agent(fake_env, tmp_path, "run", "-p", "x", "--goal-check", "true", "--goal", "y")
    assert both.returncode == 2
    assert "--goal-check and --goal" in both.stderr
    empty = run_agent(fake_env, tmp_path, "run", "-p", "x", "--goal-check", "  ")
    assert empty.returncode == 2
    assert "--goal-check: the goal is empty" in empty.stderr
    alone = run_agent(fake_env, tmp_path, "run", "-p", "x", "--max-minutes", "3")
    assert alone.returncode == 2
    assert "--max-minutes" in alone.stderr
    for proc in (both, empty, alone):
        assert "Traceback" not in proc.stderr


def test_goal_in_chat(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path):
    ws = _workspace(tmp_path)
    script = fake_model.script
    script.tool_use("write_file", path="answer.txt", content="41\n").text("Fixed.")
    script.tool_use("write_file", path="answer.txt", content="42\n").text("Now 42.")
    stdin = f"/goal {CHECK}\nmake check.py pass\n/goal\n/goal off\n/goal\n"
    proc = run_agent(
        fake_env, ws, "chat", "--permission-mode", "accept-edits", stdin=stdin, timeout=180
    )
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert f"Goal set (command): {CHECK}" in out
    assert "◎ goal pursuing — 1 attempt, last exit 3" in out
    assert "◎ goal met — 2 attempts, last exit 0" in out
    assert out.count("goal met — 2 attempts") == 2  # the panel line, then /goal shows it
    assert "Goal off." in out
    assert out.rstrip().endswith("No goal.") or "No goal." in out
    assert "Traceback" not in proc.stderr
