"""The reviewer's prompt cache (issue 54): what every review of a run repeats (its tools,
instructions, the project's rules, the user's words) is cached; the call under review is not,
so no review pays to write its one-off part, and the next review reads all that came before.
The fake server simulates the cache (tests/fake_model/usage.py) and checks every request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic
from tests.fake_model.usage import estimate_tokens


def _is_review(body: dict[str, Any]) -> bool:
    return (body.get("tool_choice") or {}).get("name") == "verdict"


def _calls(ws: Path, agent: str) -> list[dict[str, Any]]:
    records = [json.loads(line) for f in (ws / ".transcripts").glob("*.jsonl")
               for line in f.read_text().splitlines()]  # fmt: skip
    return [r["entry"] for r in records if r["type"] == "call" and r["entry"]["agent"] == agent]


def test_the_second_review_reads_the_repeated_prefix_and_writes_nothing(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, sandbox_off: None
) -> None:
    ws = tmp_path / "ws"
    (ws / ".agent").mkdir(parents=True)
    rules = ["Pushing to feature branches is fine.", "Never touch infra/."]
    (ws / ".agent" / "settings.json").write_text(json.dumps({"auto": {"rules": rules}}))
    reviewer = fake_model.route(_is_review)
    for name in ("a", "b"):
        fake_model.script.tool_use("bash", command=f"touch {name}.txt")
        reviewer.tool_use("verdict", decision="allow", reason="the user asked for the files")
    fake_model.script.text("Both made.")
    env = {**fake_env, "AGENT_TRUST_WORKSPACE": "1"}
    prompt = "make a.txt and b.txt " + "(they mark the build as done) " * 20
    proc = run_agent(env, ws, "run", "--permission-mode", "auto", "-p", prompt)
    assert proc.returncode == 0, proc.stderr
    assert (ws / "a.txt").exists()
    assert (ws / "b.txt").exists()
    first, second = [b for b in fake_model.bodies() if _is_review(b)]
    assert "Never touch infra/." in json.dumps(first["system"])
    # the user's words are in the cached part, the call after the last breakpoint
    [repeated, action] = second["messages"][0]["content"]
    assert "cache_control" in repeated
    assert "mark the build as done" in repeated["text"]
    assert "cache_control" not in action
    assert "touch b.txt" in action["text"]
    one, two = _calls(ws, "auto_reviewer")
    assert one["cache_write_tokens"] > 0  # the first writes the prefix...
    assert two["cache_write_tokens"] == 0  # ...the second writes nothing...
    # ...and reads it all: tools, instructions, rules and the user's words
    assert two["cache_read_tokens"] == one["cache_write_tokens"]
    assert two["cache_read_tokens"] > estimate_tokens(repeated["text"])
    assert two["input_tokens"] > 0  # the call itself, plain input
