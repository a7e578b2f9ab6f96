"""Goals and verification as an extension (issue 58): `agent run` against the fake model server,
in process, with the goals extension in the registry and without it; and what a plain run
imports of it before its first request (a child process: this one has imported it all)."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.runtime import build
from agent_cli.runtime.extensions.registry import BUILTINS, discover
from tests.e2e.helpers import json_lines
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

REPO = Path(__file__).resolve().parents[3]
CLAIM = "Done. All tests pass."


@pytest.fixture
def without_goals(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry without the goals' line, as if its folder were removed."""
    builtins = [d for d in BUILTINS if d.name != "goals"]
    monkeypatch.setattr(build, "discover", functools.partial(discover, builtins=builtins))


def _run(env: dict[str, str], ws: Path, *args: str) -> tuple[int, dict, str]:
    proc = run_cli(env, ws, "run", "-p", "x", "--output-format", "json", *args)
    assert "Traceback" not in proc.stderr
    results = json_lines(proc.stdout)
    return proc.returncode, results[0] if results else {}, proc.stderr


def test_the_extension_marks_the_claims(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command="false").text(CLAIM)
    code, result, _ = _run(fake_env, tmp_path, "--permission-mode", "bypass")
    assert code == 0
    assert [(c["kind"], c["verified"]) for c in result["claims"]] == [("tests", False)]


def test_without_the_extension_a_plain_run_works(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, without_goals: None
):
    fake_model.script.tool_use("bash", command="false").text(CLAIM)
    code, result, stderr = _run(fake_env, tmp_path, "--permission-mode", "bypass")
    assert code == 0, stderr
    assert result["result"] == CLAIM
    assert result["claims"] == []  # nobody marks them
    assert "goal" not in result


def test_without_the_extension_a_goal_is_a_usage_error(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, without_goals: None
):
    code, _, stderr = _run(fake_env, tmp_path, "--goal-check", "true")
    assert code == 2
    assert "goals are not available" in stderr
    assert fake_model.bodies() == []


PROBE = """
import json, os, sys
from tests.fake_model import FakeAnthropic
seen = {}
class Probe(FakeAnthropic):
    def answer(self, raw_path, headers, raw):
        if not seen and raw_path.startswith("/v1/messages"):
            seen["before"] = sorted(m for m in sys.modules if m.startswith("agent_cli.ext.goals"))
        return super().answer(raw_path, headers, raw)
fake = Probe().start()
fake.script.text("hello")
os.environ["ANTHROPIC_BASE_URL"] = fake.base_url
from agent_cli.cli.entry import run_in_process
code = run_in_process(["run", "-p", "hi", "-q"])
fake.stop()
print(json.dumps({"code": code, **seen}))
"""


def test_a_plain_run_loads_only_the_package_before_its_first_request(
    fake_env: dict[str, str], tmp_path: Path
):
    env = {**fake_env, "PYTHONPATH": str(REPO), "AGENT_NO_SERVER": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    # and its settings (`goal`, `verify`): core/settings/verify.py's before they moved here
    assert found == {"code": 0, "before": ["agent_cli.ext.goals", "agent_cli.ext.goals.settings"]}


def test_a_goal_line_says_money_as_the_chat_does():
    from agent_cli.core.verify_events import GoalStatus

    unknown = GoalStatus(check="false", attempts=1, elapsed_s=3.0, cost_usd=None)
    assert unknown.line() == "goal pursuing — 1 attempt, 3 s, n/a"
    priced = GoalStatus(check="false", attempts=1, elapsed_s=3.0, cost_usd=0.0123)
    assert priced.line() == "goal pursuing — 1 attempt, 3 s, $0.012"
    assert "n/a" not in GoalStatus(check="false").line()  # nothing spent before a turn


def test_a_limit_names_a_flag_in_a_run_and_the_setting_and_goal_in_chat():
    from agent_cli.ext.goals.goal import Goal, Limits

    for flags, named in ((True, "(--max-turns 2)"), (False, "(setting goal.max_turns 2; /goal")):
        goal = Goal("false", "command", Limits(max_turns=2, max_cost_usd=1.0, flags=flags))
        goal.status.attempts = 2
        reached = goal.limit_reached(None)
        assert reached is not None
        assert reached[0] == "turns"
        assert named in reached[1]
    budget = Goal("false", "command", Limits(max_turns=5, max_cost_usd=1.0))
    assert budget.limit_reached(1.5) == ("cost", "$1.500 spent (setting budget.max_cost_usd 1)")
