"""`agent run --input-format stream-json`: several prompts through one process, one session.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import json_lines, last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

STREAM = ("run", "--input-format", "stream-json", "--output-format", "stream-json")


def user(content: object, **extra: object) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": content}, **extra})


def test_three_prompts_three_answers_in_one_session(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("one").text("two").text("three")
    lines = [
        user("first"),
        "",  # a blank line is skipped
        user([{"type": "text", "text": "second"}], session_id="ignored"),
        user([{"type": "text", "text": "third"}, {"type": "text", "text": "part"}]),
    ]
    proc = run_cli(fake_env, tmp_path, *STREAM, stdin="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    events = json_lines(proc.stdout)
    assert [e["type"] for e in events].count("init") == 1
    results = [e for e in events if e["type"] == "result"]
    assert [r["result"] for r in results] == ["one", "two", "three"]
    assert {r["session_id"] for r in results} == {events[0]["session_id"]}
    assert [r["is_error"] for r in results] == [False] * 3
    assert [r["num_turns"] for r in results] == [1, 1, 1]
    bodies = fake_model.bodies()
    assert len(bodies) == 3  # each request valid: the fixture fails on any SPEC §16 violation
    third = bodies[2]["messages"]
    said = [b["text"] for m in third if m["role"] == "user" for b in m["content"]]
    assert said == ["first", "second", "third", "part"]
    replies = [b["text"] for m in third if m["role"] == "assistant" for b in m["content"]]
    assert replies == ["one", "two"]
    assert last_user_blocks(bodies[2])[0]["text"] == "third"


def test_a_bad_line_ends_the_run_with_exit_2_naming_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("one")
    stdin = user("first") + "\n" + json.dumps({"type": "user", "message": {"role": "bot"}}) + "\n"
    proc = run_cli(fake_env, tmp_path, *STREAM, stdin=stdin)
    assert proc.returncode == 2
    results = [e for e in json_lines(proc.stdout) if e["type"] == "result"]
    assert [r["result"] for r in results] == ["one", ""]
    assert "stdin line 2" in results[1]["error"]
    assert "Traceback" not in proc.stderr
    assert len(fake_model.bodies()) == 1


def test_a_failing_turn_is_reported_and_the_next_one_still_answered(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.prompt_too_long().text("fine")
    proc = run_cli(fake_env, tmp_path, *STREAM, stdin=user("a") + "\n" + user("b") + "\n")
    results = [e for e in json_lines(proc.stdout) if e["type"] == "result"]
    assert [r["is_error"] for r in results] == [True, False]
    assert results[1]["result"] == "fine"
    assert proc.returncode != 0  # the run as a whole failed somewhere


@pytest.mark.parametrize(
    ("args", "stdin", "says"),
    [
        (("run", "--input-format", "stream-json"), "", "--output-format stream-json"),
        ((*STREAM, "-p", "x"), "", "drop -p"),
        ((*STREAM, "--json-schema", "{}"), "", "--json-schema"),
        (STREAM, "\n\n", "no user message"),
        (STREAM, "not json\n", "stdin line 1"),
        (("run", "--input-format", "yaml", "-p", "x"), "", "--input-format"),
    ],
)
def test_wrong_flag_combinations_and_empty_input_are_exit_2(
    fake_env: dict[str, str], tmp_path: Path, args: tuple[str, ...], stdin: str, says: str
):
    proc = run_cli(fake_env, tmp_path, *args, stdin=stdin)
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr + proc.stdout, proc.stderr
    assert "Traceback" not in proc.stderr
