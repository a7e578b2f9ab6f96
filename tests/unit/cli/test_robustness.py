"""Robustness end to end: broken state files, resume edge cases, what stdout/stderr carry when
something goes wrong. The real CLI in a subprocess against the fake model server.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FAKE_API_KEY
from tests.e2e.helpers import json_lines, last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli


def _texts(body: dict) -> list[str]:
    out = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
            continue
        out += [b.get("text", "") for b in content if b.get("type") == "text"]
    return out


def _one_clear_line(stderr: str) -> None:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.startswith("agent:")]
    assert len(lines) == 1, stderr


def test_resume_after_a_cut_off_line_keeps_the_next_record(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("first answer").text("second answer").text("third answer")
    first = run_cli(fake_env, tmp_path, "run", "-p", "first question", "--output-format", "json")
    sid = json.loads(first.stdout)["session_id"]
    transcript = tmp_path / ".transcripts" / f"{sid}.jsonl"
    with transcript.open("a", encoding="utf-8") as f:
        f.write('{"type": "message", "message": {"role": "us')  # a crash mid-write
    second = run_cli(fake_env, tmp_path, "run", "--resume", sid, "-p", "second question")
    assert second.returncode == 0, second.stderr
    third = run_cli(fake_env, tmp_path, "run", "--resume", sid, "-p", "third question")
    assert third.returncode == 0, third.stderr
    texts = _texts(fake_model.bodies()[-1])
    assert texts == ["first question", "first answer", "second question", "second answer",
                     "third question"]  # fmt: skip


def test_corrupt_index_gives_one_clear_line(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "index.sqlite3").write_bytes(b"garbage" * 100)
    for args in (["notes", "list"], ["memory", "list"], ["memory", "search", "x"]):
        proc = run_cli(fake_env, tmp_path, *args)
        assert proc.returncode == 1, (args, proc.stderr)
        _one_clear_line(proc.stderr)
        assert "index.sqlite3" in proc.stderr, proc.stderr


def test_a_malformed_transcript_line_is_skipped(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("first answer").text("second answer")
    first = run_cli(fake_env, tmp_path, "run", "-p", "first question", "--output-format", "json")
    sid = json.loads(first.stdout)["session_id"]
    transcript = tmp_path / ".transcripts" / f"{sid}.jsonl"
    bad = {"type": "message", "message": {"role": "user", "content": 5}}
    with transcript.open("a", encoding="utf-8") as f:
        f.write(json.dumps(bad) + "\n")
    listing = run_cli(fake_env, tmp_path, "sessions", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    assert json.loads(listing.stdout)[0]["messages"] == 2
    shown = run_cli(fake_env, tmp_path, "sessions", "show", sid)
    assert shown.returncode == 0, shown.stderr
    resumed = run_cli(fake_env, tmp_path, "run", "--resume", sid, "-p", "second question")
    assert resumed.returncode == 0, resumed.stderr
    for proc in (listing, shown, resumed):
        assert "Traceback" not in proc.stderr
        assert "skipped a broken transcript line" in proc.stderr
    assert _texts(fake_model.bodies()[-1]) == ["first question", "first answer", "second question"]


def test_an_internal_error_is_one_line_a_json_result_and_a_logged_traceback(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "system.md").write_bytes(b"\xff\xfe not utf-8")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hi", "--output-format", "json")
    assert proc.returncode == 1
    _one_clear_line(proc.stderr)
    result = json.loads(proc.stdout)
    assert result["is_error"] is True
    assert "UnicodeDecodeError" in result["error"]
    assert "Traceback" in (tmp_path / "logs" / "agent.log").read_text()


def test_exit_2_errors_still_print_the_json_result(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    proc = run_cli(fake_env, tmp_path, "run", "-p", "x", "--output-format", "json",
                     "--resume", "nope")  # fmt: skip
    assert proc.returncode == 2
    result = json.loads(proc.stdout)
    assert result["is_error"] is True
    assert result["session_id"] is None
    assert "nope" in result["error"]
    _one_clear_line(proc.stderr)
    streamed = run_cli(fake_env, tmp_path, "run", "-p", "x", "--output-format", "stream-json",
                         "--continue")  # fmt: skip
    assert streamed.returncode == 2
    (line,) = json_lines(streamed.stdout)
    assert line["type"] == "result"
    assert line["is_error"] is True


def test_edit_diff_is_redacted_in_stream_json(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "config.env").write_text(f"API_KEY={FAKE_API_KEY}\nDEBUG=0\n")
    fake_model.script.tool_use("read_file", path="config.env")
    fake_model.script.tool_use(
        "edit_file", path="config.env", old_string="DEBUG=0", new_string="DEBUG=1"
    ).text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "turn debug on", "--output-format",
                     "stream-json", "--permission-mode", "bypass")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    ends = [e for e in json_lines(proc.stdout) if e["type"] == "tool_end"]
    assert ends[-1]["display"]["kind"] == "diff"
    assert "+DEBUG=1" in ends[-1]["display"]["diff"]
    assert "API_KEY=[redacted]" in ends[-1]["display"]["diff"]
    assert FAKE_API_KEY not in proc.stdout
    assert (tmp_path / "config.env").read_text() == f"API_KEY={FAKE_API_KEY}\nDEBUG=1\n"


def test_continue_picks_the_session_of_this_workspace(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    env = {**fake_env, "AGENT_STATE_DIR": str(tmp_path / "state")}
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    fake_model.script.text("answer one").text("answer two").text("again").text("other")
    first = run_cli(env, one, "run", "-p", "question one", "--output-format", "json")
    second = run_cli(env, two, "run", "-p", "question two", "--output-format", "json")
    assert first.returncode == second.returncode == 0
    proc = run_cli(env, one, "run", "--continue", "-p", "follow up")
    assert proc.returncode == 0, proc.stderr
    assert _texts(fake_model.bodies()[-1]) == ["question one", "answer one", "follow up"]
    other = json.loads(second.stdout)["session_id"]
    proc = run_cli(env, one, "run", "--resume", other, "-p", "cross")
    assert proc.returncode == 0, proc.stderr
    assert f"session {other} was recorded in {two}" in proc.stderr


def test_cost_after_resume_counts_the_restored_usage(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("first", usage={"input_tokens": 100_000, "output_tokens": 1000})
    fake_model.script.text("second", usage={"input_tokens": 10, "output_tokens": 10})
    first = json.loads(
        run_cli(fake_env, tmp_path, "run", "-p", "q1", "--output-format", "json").stdout
    )
    proc = run_cli(fake_env, tmp_path, "run", "--resume", first["session_id"], "-p", "q2",
                     "--output-format", "json")  # fmt: skip
    second = json.loads(proc.stdout)
    assert first["cost_usd"] > 0.3
    assert second["usage"]["input_tokens"] == 100_010
    assert second["cost_usd"] > first["cost_usd"]


def test_crlf_file_takes_a_multi_line_edit(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "w.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    fake_model.script.tool_use("read_file", path="w.txt")
    fake_model.script.tool_use(
        "edit_file", path="w.txt", old_string="alpha\nbeta", new_string="one\ntwo\nthree"
    ).text("edited")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "edit", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    (read_result,) = last_user_blocks(fake_model.bodies()[1])
    assert "\r" not in read_result["content"]
    (edit_result,) = last_user_blocks(fake_model.bodies()[2])
    assert not edit_result.get("is_error"), edit_result
    assert (tmp_path / "w.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\ngamma\r\n"
