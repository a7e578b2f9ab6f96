"""`agent run --json-schema`: the answer as a JSON value valid against the user's schema.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
    "required": ["name", "count"],
    "additionalProperties": False,
}


def test_one_invalid_value_is_sent_back_then_the_valid_one_is_printed_alone(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    fake_model.script.tool_use("structured_output", name="x", count="three")
    fake_model.script.tool_use("structured_output", name="x", count=3).text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "count", "--json-schema", "schema.json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"name": "x", "count": 3}
    assert proc.stdout.count("\n") == 1  # the value alone, not the closing text
    first, second, _third = fake_model.bodies()
    offered = next(t for t in first["tools"] if t["name"] == "structured_output")
    assert offered["input_schema"] == SCHEMA
    (result,) = last_user_blocks(second)
    assert result["is_error"] is True
    assert "count" in str(result["content"])
    assert "integer" in str(result["content"])


def test_a_schema_never_met_exits_1_with_the_json_result(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("structured_output", name=1, count=1)
    fake_model.script.tool_use("structured_output", name=2, count=2).text("gave up")
    proc = run_cli(
        fake_env,
        tmp_path,
        "run",
        "-p",
        "x",
        "--json-schema",
        json.dumps(SCHEMA),
        "--output-format",
        "json",
    )
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)
    assert result["is_error"] is True
    assert result["structured_output"] is None
    assert "--json-schema" in result["error"]
    assert len(fake_model.bodies()) == 3


def test_a_bad_schema_is_exit_2_naming_the_flag(fake_env: dict[str, str], tmp_path: Path):
    proc = run_cli(fake_env, tmp_path, "run", "-p", "x", "--json-schema", "{not json")
    assert proc.returncode == 2
    assert "--json-schema" in proc.stderr
    assert "Traceback" not in proc.stderr
