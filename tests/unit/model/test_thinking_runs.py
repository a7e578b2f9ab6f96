"""Extended thinking end to end: the setting turns it on, thinking streams as its own event, and
every thinking block goes back exactly as the API requires (signature, redacted data) across tool
rounds, compaction and `--continue`. The fake model checks §16 and the signatures it issued.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.helpers import json_lines
from tests.fake_model import FakeAnthropic, has_tools
from tests.in_process import run_cli

THOUGHT = {"type": "thinking", "thinking": "I should read a.txt first."}
REDACTED = {"type": "redacted_thinking"}


def think_on(home: Path, budget: int = 2_048, **more: Any) -> None:
    config = home / ".config" / "agent"
    config.mkdir(parents=True, exist_ok=True)
    settings = {"thinking": {"budget_tokens": budget}, **more}
    (config / "settings.json").write_text(json.dumps(settings))


def read_then_answer(fake: FakeAnthropic, answer: str = "a says hi") -> None:
    fake.script.reply(
        [THOUGHT, REDACTED, {"type": "tool_use", "name": "read_file", "input": {"path": "a.txt"}}]
    ).reply([{"type": "thinking", "thinking": "Now answer."}, {"type": "text", "text": answer}])


def test_thinking_round_trips_its_signature_through_tool_rounds_and_continue(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    think_on(Path(fake_env["HOME"]))
    (tmp_path / "a.txt").write_text("hi\n")
    read_then_answer(fake_model)
    fake_model.script.text("still here")
    proc = run_cli(fake_env, tmp_path, "run", "-p", "what is in a.txt?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "a says hi"  # the thinking is never the answer
    first, second = fake_model.bodies()
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2_048}
    headers = [r.headers for r in fake_model.requests if r.path == "/v1/messages"]
    assert "interleaved-thinking" in headers[0].get("anthropic-beta", "")
    sent_back = second["messages"][1]["content"]
    issued = fake_model.replies[0]["content"]
    assert sent_back[:2] == issued[:2]  # thinking and redacted, byte for byte, first
    assert sent_back[0]["signature"].startswith("sigfake_")

    resumed = run_cli(fake_env, tmp_path, "run", "--continue", "-p", "and now?")
    assert resumed.returncode == 0, resumed.stderr
    third = fake_model.bodies()[2]
    assistant = [m for m in third["messages"] if m["role"] == "assistant"]
    assert assistant[0]["content"][:2] == issued[:2]
    assert assistant[1]["content"][0] == fake_model.replies[1]["content"][0]
    assert len(fake_model.thinking_bodies()) == 3


def test_thinking_streams_as_its_own_event_in_stream_json(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    think_on(Path(fake_env["HOME"]))
    (tmp_path / "a.txt").write_text("hi\n")
    read_then_answer(fake_model)
    args = ("run", "-p", "go", "--output-format", "stream-json")
    proc = run_cli(fake_env, tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    events = json_lines(proc.stdout)
    thinking = [e for e in events if e.get("type") == "thinking"]
    assert "".join(e["text"] for e in thinking) == THOUGHT["thinking"] + "Now answer."
    assert [e for e in thinking if e["redacted"]] == [
        {"type": "thinking", "text": "", "redacted": True}
    ]
    texts = "".join(e["text"] for e in events if e.get("type") == "text")
    assert "I should read" not in texts


def test_without_the_setting_no_request_carries_thinking(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("plain")
    assert run_cli(fake_env, tmp_path, "run", "-p", "hi").returncode == 0
    assert "thinking" not in fake_model.bodies()[0]


def test_a_budget_not_below_max_tokens_exits_2_naming_it(fake_env: dict[str, str], tmp_path: Path):
    think_on(Path(fake_env["HOME"]), budget=16_000, max_tokens=16_000)
    proc = run_cli(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 2
    assert "thinking.budget_tokens" in proc.stderr
    assert "max_tokens" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_thinking_survives_a_compaction_inside_the_tool_round(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    think_on(Path(fake_env["HOME"]))
    (tmp_path / "a.txt").write_text("hi\n")
    summariser = fake_model.route(has_tools(False))
    summariser.text("The user asked about a.txt; it was read.")
    fake_model.script.reply(
        [THOUGHT, {"type": "tool_use", "name": "read_file", "input": {"path": "a.txt"}}]
    )
    compacting = {"type": "thinking", "thinking": "Context is long: compact."}
    fake_model.script.reply([compacting, {"type": "tool_use", "name": "compact", "input": {}}])
    fake_model.script.text("done")
    args = ("run", "-p", "read and compact", "--output-format", "stream-json")
    proc = run_cli(fake_env, tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    assert [e["stage"] for e in json_lines(proc.stdout) if e["type"] == "compaction"] == ["compact"]
    helper, last = fake_model.bodies()[2:]
    assert "thinking" not in helper  # a helper call thinks nothing
    assert len(last["messages"]) == 3  # the summary, then the round that asked for it
    assert last["messages"][1]["content"][0] == fake_model.replies[1]["content"][0]
