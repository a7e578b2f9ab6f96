"""Issue 19, a liberal model through the real CLI: tool input JSON that is invalid, truncated
or absurdly nested, and tool_use ids repeated in one reply (findings 8 and 11).

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

MODE = ("--permission-mode", "bypass")


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in last_user_blocks(body) if b["type"] == "tool_result"]


def test_invalid_truncated_and_deep_tool_json_become_error_results(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    deep = "[" * 5_000 + "]" * 5_000
    calls = [
        '{"path": nope}',
        '{"path": "a.txt", "content": "half"',  # truncated: must not be completed and run
        '{"path": "b.txt", "content": ' + deep + "}",
        '["path", "c.txt"]',
    ]
    blocks = [{"type": "tool_use", "name": "write_file", "input": raw} for raw in calls]
    fake_model.script.reply(blocks).text("recovered")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", *MODE, "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "recovered"
    assert "internal error" not in proc.stderr
    results = _results(fake_model.bodies()[1])
    assert [r["is_error"] for r in results] == [True] * 4
    assert "not valid JSON" in results[0]["content"]
    assert '{"path": nope}' in results[0]["content"]
    assert "not valid JSON" in results[1]["content"]
    assert "nested" in results[2]["content"]
    assert "not an object" in results[3]["content"]
    assert not (tmp_path / "a.txt").exists()
    assert not (tmp_path / "b.txt").exists()
    # the calls stay in history with an input the API accepts again
    stored = fake_model.bodies()[1]["messages"][1]["content"]
    assert [b["input"] for b in stored] == [{}, {}, {}, {}]


def test_repeated_tool_use_ids_run_once_and_stay_unique_in_later_requests(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    same = "toolu_same"
    blocks = [
        {"type": "tool_use", "id": same, "name": "bash", "input": {"command": "echo x >> log"}},
        {"type": "tool_use", "id": same, "name": "bash", "input": {"command": "echo y >> log"}},
    ]
    fake_model.script.reply(blocks).tool_use("bash", command="echo z >> log").text("done")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", *MODE)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "log").read_text() == "x\nz\n"
    last = fake_model.bodies()[-1]
    ids = [
        b["id"] for m in last["messages"] if isinstance(m["content"], list)
        for b in m["content"] if b.get("type") == "tool_use"
    ]  # fmt: skip
    assert len(ids) == len(set(ids)) == 3
    first_round = _results(fake_model.bodies()[1])
    assert first_round[0].get("is_error") is not True
    assert first_round[1]["is_error"] is True
    assert "reused the tool_use id" in first_round[1]["content"]
    assert not fake_model.violations


def test_file_names_that_are_not_utf8_reach_the_transcript_escaped(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    outside = tmp_path / os.fsdecode(b"caf\xe9-\xff")  # a name that is not UTF-8
    outside.mkdir()
    (outside / "notes.txt").write_text("inside a folder whose name is not UTF-8\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "linked").symlink_to(outside)
    (ws / "dangling").symlink_to(tmp_path / os.fsdecode(b"missing-\xfe"))
    fake_model.script.tool_uses(
        ("read_file", {"path": "linked/notes.txt"}),
        ("read_file", {"path": "dangling"}),
        ("glob", {"pattern": "**/*"}),
        ("bash", {"command": "ls -la; printf 'raw \\377 byte'"}),
        ("write_file", {"path": "out-\udcff.txt", "content": "x"}),
    ).text("done")
    proc = run_cli(fake_env, ws, "run", "-p", "go", *MODE, "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["is_error"] is False
    results = _results(fake_model.bodies()[1])
    assert "not UTF-8" in results[0]["content"]
    assert "\\udcfe" in results[1]["content"]
    (transcript,) = (ws / ".transcripts").glob("*.jsonl")
    text = transcript.read_bytes().decode("utf-8")  # valid UTF-8 throughout
    assert "missing-" in text


def test_the_key_in_any_common_encoding_or_repeated_by_the_model_is_never_stored(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    import base64
    import codecs

    from tests.conftest import FAKE_API_KEY as KEY

    encoded = {
        "base64": base64.b64encode(f"token={KEY};".encode()).decode(),
        "urlsafe": base64.urlsafe_b64encode(f"ab{KEY}".encode()).decode(),
        "reversed": KEY[::-1],
        "rot13": codecs.encode(KEY, "rot13"),
        "hex": KEY.encode().hex(),
    }
    fake_model.script.tool_uses(
        *(("bash", {"command": f"echo {form}"}) for form in encoded.values()),
        ("write_file", {"path": "leak.txt", "content": f"key: {KEY}\n"}),
        text=f"I found the key {KEY} in the environment.",
    ).text(f"The key was {KEY}.")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", *MODE, "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)["result"]
    assert KEY not in result
    assert "[redacted]" in result
    stored = "\n".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    for form in (KEY, *encoded.values()):
        assert form not in stored
        assert form not in json.dumps(fake_model.bodies()[1:])
    assert (tmp_path / "leak.txt").read_text() == "key: [redacted]\n"
