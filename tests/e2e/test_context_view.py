"""Where the context goes (issue 39): `/context` in the real `agent chat` at 80 columns, its
categories adding up to what the fake server counts; `agent run`'s "context"; and
`context.compact_at` moving the point where compaction starts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_cli.context.breakdown import LABELS
from agent_cli.core.settings.schema import DEFAULT_MODEL
from tests.e2e.helpers import run_agent
from tests.e2e.mcp_support import stdio_spec
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic
from tests.fake_model.routing import system_contains
from tests.fake_model.usage import estimate_tokens

ROW = re.compile(r"^ (\S)  (.+?)\s+([\d,]+)\s+([\d.]+)%$")


def counted(body: dict[str, Any]) -> int:
    """The request's tokens as the fake server counts them (its usage says the same)."""
    return estimate_tokens(body)


def rows(screen: str) -> dict[str, int]:
    found = {}
    for line in screen.splitlines():
        if match := ROW.match(line):
            found[match.group(2).strip()] = int(match.group(3).replace(",", ""))
    return found


def test_context_at_80_columns_adds_up_to_the_request_the_server_counts(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    config = Path(fake_env["HOME"]) / ".config" / "agent"
    config.mkdir(parents=True)
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {"testsrv": stdio_spec()}}))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Always run the tests before you say done.\n" * 40)
    (workspace / "notes.txt").write_text("a line of notes to read\n" * 300)
    fake_model.script.tool_use("read_file", path="notes.txt").text("Read it.").text("Again.")
    term = ChatTerm(fake_env, workspace, columns=80, lines=24)
    try:
        term.wait_for("mcp 1/1")
        term.type("read notes.txt")
        term.wait_for("Read it.")
        term.wait_idle()
        term.type("/context")
        screen = term.wait_for("Compaction starts at")
        term.type("and again")
        term.wait_for("Again.")
    finally:
        term.close()
    shown = screen.splitlines()
    assert all(len(line) <= 80 for line in shown)
    found = rows(screen)
    assert set(found) == {*LABELS.values(), "Free"}
    for label in ("System prompt", "Tool definitions", "MCP tools", "Skills and instructions"):
        assert found[label] > 0, label
    assert found["Tool results"] > 1_500  # the 7 KB file as the model read it
    used = sum(v for k, v in found.items() if k != "Free")
    header = next(line for line in shown if line.startswith("Context of "))
    assert f"{used:,} of 200,000 tokens" in header
    assert used + found["Free"] == 200_000
    assert "Estimate ±5%, calibrated on the last request." in screen
    # what /context counted is what the next request carried, but for the prompt it added
    *_, before, after = [b for b in fake_model.bodies() if b.get("tools")]
    added = counted({"messages": [after["messages"][-1]]})
    assert abs(used - (counted(after) - added)) <= 0.05 * counted(after)
    assert counted(before) < used < counted(after)
    # the panel (folded below at 80 columns) says where compaction starts
    assert "(at 80%)" in screen


def test_run_json_carries_the_breakdown(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("hello there")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "hi", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["context"]
    assert list(context["categories"]) == list(LABELS)
    assert context["used"] == sum(context["categories"].values())
    assert context["used"] + context["free"] == context["window"] == 200_000
    assert context["compact_at"] == 160_000
    assert context["calibrated"] is True
    (body,) = fake_model.bodies()
    assert abs(context["used"] - counted(body)) <= context["estimate_error"] * counted(body)


LONG_PROMPT = "Please keep this whole paragraph in mind while we work. " * 140  # ~2,000 tokens


def two_turns(fake_model: FakeAnthropic, env: dict[str, str], ws: Path, compact_at: Any) -> None:
    """A first turn with a long prompt, then a second one on `--continue`, in a 10,000-token
    window."""
    context: dict[str, Any] = {} if compact_at is None else {"compact_at": compact_at}
    settings = {"context_windows": {DEFAULT_MODEL: 10_000}, "context": context}
    (ws / ".agent").mkdir(parents=True, exist_ok=True)
    (ws / ".agent" / "settings.json").write_text(json.dumps(settings))
    fake_model.script.text("Noted.").text("Still here.")
    first = run_agent(env, ws, "run", "-p", LONG_PROMPT, "--output-format", "json")
    assert first.returncode == 0, first.stderr
    share = json.loads(first.stdout)["context"]["used"] / 10_000
    assert 0.5 < share < 0.8  # between half the window and the default threshold
    second = run_agent(env, ws, "run", "--continue", "-p", "next", "--output-format", "json")
    assert second.returncode == 0, second.stderr


def test_compact_at_half_compacts_where_the_default_does_not(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    summaries = fake_model.route(system_contains("working summary of a coding-agent conversation"))
    summaries.respond(lambda body: "The user shared a paragraph to keep in mind.", times=5)
    two_turns(fake_model, fake_env, tmp_path / "default", None)
    assert summaries.served == 0
    two_turns(fake_model, fake_env, tmp_path / "half", 0.5)
    assert summaries.served == 1
    last = fake_model.bodies()[-1]
    assert LONG_PROMPT not in json.dumps(last["messages"])  # summarised away
    assert "Conversation summary" in json.dumps(last["messages"])


def test_a_bad_compact_at_exits_2_naming_it(fake_env: dict[str, str], tmp_path: Path):
    (tmp_path / ".agent").mkdir()
    for bad in (1.5, "half", 500, 300_000):
        settings = {"context": {"compact_at": bad}}
        (tmp_path / ".agent" / "settings.json").write_text(json.dumps(settings))
        proc = run_agent(fake_env, tmp_path, "run", "-p", "hi")
        assert proc.returncode == 2, (bad, proc.stderr)
        assert "context.compact_at" in proc.stderr
        assert "Traceback" not in proc.stderr
