"""`agent run --permission-mode plan`: ask_user finds nobody to ask and the run goes on;
present_plan ends the run with the plan as its result (exit 0, no edit attempted).

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import json_lines, last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

PLAN = "# Plan\n\n1. Add `greet()` to a.py\n2. Test it"


def test_plan_mode_run_ends_at_the_plan(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ask = {"question": "Which name?", "header": "Name", "options": [{"label": "a"}, {"label": "b"}]}
    fake_model.script.tool_use("ask_user", questions=[ask])
    fake_model.script.tool_use("present_plan", plan=PLAN)
    fake_model.script.tool_use("write_file", path="a.py", content="never\n")
    mode = ("--permission-mode", "plan", "--output-format", "stream-json")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "plan greet", *mode)
    assert proc.returncode == 0, proc.stderr
    events = json_lines(proc.stdout)
    assert "present_plan" in events[0]["tools"]
    assert "ask_user" in events[0]["tools"]
    by_type = {e["type"]: e for e in events}
    assert by_type["answer"]["nobody"] is True
    assert by_type["plan"]["plan"] == PLAN
    assert events[-1]["type"] == "result"
    assert events[-1]["plan"] == PLAN
    assert not events[-1]["is_error"]
    # two requests: the run went on after ask_user and ended at the plan, no edit attempted
    _first, second = fake_model.bodies()
    (answer,) = last_user_blocks(second)
    assert "Nobody can be asked" in answer["content"]
    assert "assumption" in answer["content"]
    assert not (tmp_path / "a.py").exists()
    (kept,) = (tmp_path / ".agent" / "plans").glob("*.md")
    assert kept.read_text() == PLAN + "\n"
