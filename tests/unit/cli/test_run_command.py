"""`agent run` in process (tests/in_process.py): the typer command, the real SDK, the fake model
server; what it prints, logs and exits with. The process itself (its exit, a pipe, a second
process continuing) is tests/e2e/test_run.py's."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FAKE_API_KEY
from tests.e2e.helpers import all_text, json_lines, last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli


def test_read_file_result_reaches_next_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.py").write_text("print('unique-content-42')\n")
    fake_model.script.tool_use("read_file", path="a.py").text("It prints unique-content-42.")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "what does a.py print?")
    assert proc.returncode == 0, proc.stderr
    _, second = fake_model.bodies()
    tool_use = first_tool_use(second)
    (result,) = last_user_blocks(second)
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == tool_use["id"]
    assert "unique-content-42" in result["content"]
    assert proc.stdout.strip() == "It prints unique-content-42."


def first_tool_use(body: dict) -> dict:
    assistant = body["messages"][-2]
    return next(b for b in assistant["content"] if b["type"] == "tool_use")


def test_tool_use_under_end_turn_still_runs(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.tool_use("bash", command="echo ran > proof.txt", stop_reason="end_turn")
    fake_model.script.text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "proof.txt").read_text() == "ran\n"
    assert len(fake_model.bodies()) == 2


def test_overloaded_then_success(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path):
    fake_model.script.error(529).text("recovered")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "recovered"
    assert len(fake_model.bodies()) == 2
    calls = json_lines((tmp_path / "logs" / "llm-calls.jsonl").read_text())
    assert len(calls) == 1  # the SDK's own retry is one call
    assert calls[0]["api_key_last4"] == FAKE_API_KEY[-4:]


def test_dropped_stream_is_retried_and_side_effect_runs_once(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    command = "echo once >> count.txt"
    fake_model.script.tool_use("bash", command=command, drop_after=5)
    fake_model.script.tool_use("bash", command=command).text("all done")
    proc = run_cli(
        fake_env,
        tmp_path,
        "run",
        "-p",
        "count",
        "--output-format",
        "stream-json",
        "--permission-mode",
        "bypass",
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "count.txt").read_text() == "once\n"
    events = json_lines(proc.stdout)
    assert [e["attempt"] for e in events if e["type"] == "stream_restart"] == [1]
    # nothing of the broken reply entered history: one assistant tool_use in the last request
    last = fake_model.bodies()[-1]
    uses = [
        b
        for m in last["messages"]
        if m["role"] == "assistant"
        for b in m["content"]
        if b["type"] == "tool_use"
    ]
    assert len(uses) == 1


def test_prompt_too_long_is_a_typed_error(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.prompt_too_long()
    proc = run_cli(fake_env, tmp_path, "run", "-p", "x", "--output-format", "json")
    assert proc.returncode == 1
    (result,) = json_lines(proc.stdout)
    assert result["is_error"] is True
    assert "too long" in result["error"]
    assert "Traceback" not in proc.stderr


def test_max_tokens_gets_a_continuation(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("first half,", stop_reason="max_tokens").text(" second half.")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "write")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "first half, second half."
    second = fake_model.bodies()[1]
    assert second["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "first half,"}],
    }
    assert "cut off" in last_user_blocks(second)[0]["text"]


def test_resume_by_unique_prefix_and_unknown_session(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("one").text("two")
    first = run_cli(fake_env, tmp_path, "run", "-p", "q1", "--output-format", "json")
    session_id = json.loads(first.stdout)["session_id"]
    proc = run_cli(fake_env, tmp_path, "run", "--resume", session_id[:-2], "-p", "q2")
    assert proc.returncode == 0, proc.stderr
    assert len(fake_model.bodies()[1]["messages"]) == 3
    missing = run_cli(fake_env, tmp_path, "run", "--resume", "nope", "-p", "q3")
    assert missing.returncode == 2
    assert "No session matches 'nope'" in missing.stderr


def test_no_credentials_exits_2_naming_the_variable(fake_env: dict[str, str], tmp_path: Path):
    env = {k: v for k, v in fake_env.items() if not k.startswith("ANTHROPIC_")}
    proc = run_cli(env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 2
    assert "ANTHROPIC_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_flag_and_bad_setting_exit_2(fake_env: dict[str, str], tmp_path: Path):
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hi", "--output-format", "yaml")
    assert proc.returncode == 2
    assert "--output-format" in proc.stderr
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text('{"context": {"snip_trigerr": 3}}')
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 2
    assert "context.snip_trigerr" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_max_turns_exits_1(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path):
    (tmp_path / "a.txt").write_text("a")
    for _ in range(3):
        fake_model.script.tool_use("read_file", path="a.txt")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "loop", "--max-turns", "2")
    assert proc.returncode == 1
    assert "max-turns" in proc.stderr
    assert len(fake_model.bodies()) == 2


def test_stream_json_lines_all_parse(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.txt").write_text("a")
    fake_model.script.tool_use("read_file", path="a.txt").text("fine")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "x", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    events = json_lines(proc.stdout)
    types = [e["type"] for e in events]
    assert types[0] == "init"
    assert types[-1] == "result"
    assert {"tool_start", "tool_end", "text", "usage", "turn_end"} <= set(types)
    assert events[-1]["result"] == "fine"
    assert "read_file" in events[0]["tools"]


def test_api_key_never_reaches_logs_or_transcripts(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "leak.txt").write_text(f"key={FAKE_API_KEY}\n")
    fake_model.script.tool_uses(
        ("read_file", {"path": "leak.txt"}),
        ("bash", {"command": "echo env=$ANTHROPIC_API_KEY; cat leak.txt"}),
    ).text("ok")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "leak it", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    results = last_user_blocks(fake_model.bodies()[-1])
    assert all(FAKE_API_KEY not in r["content"] for r in results)
    assert "[redacted]" in results[0]["content"]
    assert "env=\n" in results[1]["content"]  # the variable is not in bash's environment
    for folder in ("logs", ".transcripts"):
        assert FAKE_API_KEY not in all_text(tmp_path / folder)
    assert FAKE_API_KEY[-4:] in all_text(tmp_path / "logs")


def test_sessions_list_and_show(fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path):
    fake_model.script.text("answer")
    run_cli(fake_env, tmp_path, "run", "-p", "remember this prompt")
    listing = run_cli(fake_env, tmp_path, "sessions", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    (row,) = json.loads(listing.stdout)
    assert row["first_prompt"] == "remember this prompt"
    shown = run_cli(fake_env, tmp_path, "sessions", "show", row["id"][:10])
    assert shown.returncode == 0, shown.stderr
    assert "remember this prompt" in shown.stdout
    assert "answer" in shown.stdout


def test_a_limit_of_zero_is_refused_by_its_flag_before_any_request(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    for flag, value in (("--max-cost", "0"), ("--max-minutes", "-1")):
        proc = run_cli(fake_env, tmp_path, "run", "-p", "hi", "--goal", "x", flag, value)
        assert proc.returncode == 2, proc.stderr
        assert f"'{flag}': {value} is not a limit" in proc.stderr
    assert fake_model.bodies() == []
    help_text = run_cli(fake_env, tmp_path, "run", "--help").stdout
    assert "x>=0" not in help_text
    assert "more than 0" in help_text
