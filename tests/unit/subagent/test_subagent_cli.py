"""`task` through the real CLI and SDK: what the subagent and the parent are sent, the notes on
disk, `agent notes`, and three subagents running at once.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.e2e.helpers import json_lines
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import Predicate, first_user_contains, system_contains
from tests.in_process import run_cli

SUBAGENT = system_contains("You are a subagent")
MARKER = "ZEBRA-QUOKKA-7731"


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body.get("tools", [])]


def quote_lines(text: str) -> list[str]:
    """The lines of `text` that hold the big file's marker; they must all be quotes of it."""
    lines = [line for line in text.splitlines() if MARKER in line]
    assert all(re.match(r"^ +\d+ \| ", line) for line in lines), lines
    return lines


def results_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in body["messages"][-1]["content"] if b["type"] == "tool_result"]


def subagent_asked(text: str) -> Predicate:
    """Requests of the subagent whose first user message holds `text`."""
    asks = first_user_contains(text)
    return lambda body: SUBAGENT(body) and asks(body)


def test_subagent_reads_a_big_file_and_the_parent_gets_only_the_note(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    line = f"{MARKER} " + "data " * 16 + "\n"  # 100 characters
    (tmp_path / "big.txt").write_text(line * 200)  # 20 KB: under the tool-result limit
    prompt = "Find what big.txt is made of and report."
    fake_model.script.tool_use("task", description="inspect big.txt", prompt=prompt)
    fake_model.script.text("The file is one repeated line.")
    child = fake_model.route(SUBAGENT)
    child.tool_uses(("read_file", {"path": "big.txt"}), text="CHILD-CHATTER reading it")
    child.tool_use(
        "submit_note",
        conclusion="big.txt is a single line repeated 200 times.",
        evidence=["big.txt:1-200 identical lines"],
        file_refs=["big.txt"],
        confidence="high",
    )
    proc = run_cli(fake_env, tmp_path, "run", "-p", "go", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr

    parent_first, child_first, child_second, parent_second = fake_model.bodies()
    assert child_first["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}],
        }
    ]
    assert "submit_note" in tool_names(child_first)
    assert "task" not in tool_names(child_first)
    assert "task" in tool_names(parent_first)
    assert "submit_note" not in tool_names(parent_first)
    assert MARKER in json.dumps(child_second)

    (result,) = results_of(parent_second)
    assert result["content"].startswith(
        "[subagent note · completed] big.txt is a single line repeated 200 times."
    )
    # of the 200 lines only the two quoted for the cited range reach the parent, each cut short
    assert json.dumps(parent_second).count(MARKER) == 2
    cut = line[:95] + "…"  # a quote is at most 100 characters
    assert quote_lines(result["content"]) == [f"    1 | {cut}", f"    2 | {cut}"]
    assert len(result["content"]) < 3000
    assert "is_error" not in result

    (note_id,) = [p.stem for p in (tmp_path / "notes").glob("*.json")]
    for ext in ("md", "json", "log"):
        assert (tmp_path / "notes" / f"{note_id}.{ext}").is_file()
    log = (tmp_path / "notes" / f"{note_id}.log").read_text()
    assert MARKER in log
    assert "CHILD-CHATTER" in log
    assert prompt in log
    assert f"notes/{note_id}.log" in result["content"]

    events = json_lines(proc.stdout)
    assert [e["note"]["id"] for e in events if e["type"] == "note"] == [note_id]
    texts = "".join(e["text"] for e in events if e["type"] == "text")
    assert "CHILD-CHATTER" not in texts
    assert "The file is one repeated line." in texts
    callers = {c["caller"] for c in json_lines((tmp_path / "logs/llm-calls.jsonl").read_text())}
    assert callers == {"main", f"subagent:{note_id}"}
    usage = next(e for e in events if e["type"] == "result")["usage"]
    assert usage["output_tokens"] == sum(
        c["output_tokens"] for c in json_lines((tmp_path / "logs/llm-calls.jsonl").read_text())
    )

    listed = run_cli(fake_env, tmp_path, "notes", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert row["id"] == note_id
    assert row["status"] == "completed"
    assert row["conclusion"] == "big.txt is a single line repeated 200 times."
    assert row["confidence"] == "high"
    assert row["session_id"]
    assert row["created"]
    assert row["figures"]["process_chars"] > 20_000 > row["figures"]["note_chars"]
    assert [c["verdict"] for c in row["evidence_checks"]] == ["verified"]
    assert row["marks"] == []

    shown = run_cli(fake_env, tmp_path, "notes", "show", note_id[:-2])
    assert shown.returncode == 0, shown.stderr
    assert "big.txt is a single line repeated 200 times." in shown.stdout
    assert {q.strip()[:4] for q in quote_lines(shown.stdout)} == {"1 | ", "2 | "}
    caveat = "lines exist; words not compared"
    assert f"- [verified] big.txt:1-200 identical lines — {caveat}\n" in shown.stdout
    checks = "## Evidence checks\n\n- **verified** (location) big.txt:1-200 identical lines"
    assert f"{checks} — {caveat}\n" in shown.stdout
    assert "## Grounding (from the run's log)\n\n2 turns, 1 tool call" in shown.stdout
    assert "Files read:\n- big.txt\n" in shown.stdout
    full = run_cli(fake_env, tmp_path, "notes", "show", note_id, "--full")
    assert MARKER in full.stdout

    found = run_cli(fake_env, tmp_path, "notes", "search", "repeated")
    assert note_id in found.stdout
    assert "completed   high   1/1 verified inspect big.txt: big.txt is a single" in found.stdout
    missing = run_cli(fake_env, tmp_path, "notes", "show", "nope")
    assert missing.returncode == 2
    assert "No note matches 'nope'" in missing.stderr


def test_three_tasks_in_one_round_run_concurrently_in_call_order(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    jobs = [f"job-{n}" for n in (1, 2, 3)]
    fake_model.script.tool_uses(
        *(("task", {"description": job, "prompt": f"Do {job}."}) for job in jobs)
    )
    fake_model.script.text("all three done")
    for job in jobs:
        child = fake_model.route(subagent_asked(job))
        child.tool_use("submit_note", conclusion=f"{job} finished", delay=1.0)

    proc = run_cli(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    requests = [r for r in fake_model.requests if r.path == "/v1/messages"]
    parent = [r for r in requests if not SUBAGENT(r.body)]
    children = [r for r in requests if SUBAGENT(r.body)]
    assert len(parent) == 2
    assert len(children) == 3
    # the three 1 s replies overlap: all arrived before the first could have been answered
    assert max(r.time for r in children) - min(r.time for r in children) < 0.9
    wall = parent[1].time - parent[0].time
    assert wall < 2.0, f"three 1 s subagents took {wall:.2f} s"
    contents = [r["content"] for r in results_of(parent[1].body)]
    # none of them made a tool call: each note says so first
    assert [c.splitlines()[0] for c in contents] == [
        f"[subagent note · completed · unverified: no tool calls] {job} finished" for job in jobs
    ]
