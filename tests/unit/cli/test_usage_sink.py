"""Every model call is accounted once, in one place: a session with a subagent, a compaction and
an episode, run through `agent run`; the usage the fake server served agrees, to the token, with
the stream-json usage events, the live panel folded from them, the result object, the exit
summary, and the session when it is resumed.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from agent_cli.core.events import Event
from agent_cli.ui.screen.side_panel import PanelState
from tests.e2e.helpers import json_lines
from tests.e2e.memory_support import GENERATOR_MARK, episode_json
from tests.fake_model import FakeAnthropic, has_tools, system_contains
from tests.in_process import run_cli

KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
OPEN = [{"content": "Find the retries", "status": "in_progress", "active_form": "Finding"}]
DONE = [{"content": "Find the retries", "status": "completed"}]


def total(rows: list[dict[str, Any]]) -> dict[str, int]:
    sums = {k: sum(int(r.get(k) or 0) for r in rows) for k in KEYS}
    searches = [(r.get("server_tool_use") or {}).get("web_search_requests", 0) for r in rows]
    return {**sums, "web_search_requests": sum(searches)}


def script_session(server: FakeAnthropic) -> None:
    no_tools = has_tools(False)
    episode = system_contains(GENERATOR_MARK)
    server.route(lambda b: no_tools(b) and episode(b)).text(episode_json("Found the retries"))
    server.route(lambda b: no_tools(b) and not episode(b)).text("Summary: retries were found.")
    subagent = server.route(system_contains("You are a subagent"))
    subagent.tool_use("read_file", path="a.py")
    subagent.tool_use("submit_note", conclusion="Retries are in a.py.", confidence="high")
    main = server.script
    main.tool_use("todo_write", todos=OPEN)
    main.tool_use("task", description="find retries", prompt="Where are the retries?")
    main.tool_use("read_file", path="a.py")
    main.tool_use("compact", focus="the retries")
    main.tool_use("todo_write", todos=DONE)
    main.text("The retries are in a.py.")


def exit_summary_totals(stderr: str) -> dict[str, int]:
    found = re.search(
        r"tokens: input (\d+), output (\d+), cache read (\d+), cache write (\d+)", stderr
    )
    assert found, stderr
    return dict(zip(KEYS, map(int, found.groups()), strict=True))


def test_every_call_is_counted_the_same_everywhere(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "a.py").write_text("def retry():\n    return 3\n")
    script_session(fake_model)
    args = ["--permission-mode", "bypass", "--output-format", "stream-json"]
    first = run_cli(fake_env, tmp_path, "run", "-p", "find the retries", *args)
    assert first.returncode == 0, first.stderr
    lines = json_lines(first.stdout)
    callers = {line["caller"] for line in lines if line["type"] == "usage"}
    assert {"main", "summariser", "episode"} <= callers
    assert any(c.startswith("subagent:") for c in callers)

    served = total(fake_model.served_usage)
    assert served["input_tokens"] + served["cache_creation_input_tokens"] > 0
    assert total([line for line in lines if line["type"] == "usage"]) == served
    panel = PanelState()
    for line in lines:
        if line["type"] not in ("init", "result"):
            panel.apply(TypeAdapter(Event).validate_python(line))
    assert panel.calls == len(fake_model.served_usage)
    assert panel.input_tokens == served["input_tokens"] + served["cache_creation_input_tokens"]
    assert panel.output_tokens == served["output_tokens"]
    assert panel.cache_read == served["cache_read_input_tokens"]
    result = lines[-1]
    assert result["type"] == "result"
    assert result["usage"] == served
    assert exit_summary_totals(first.stderr) == {k: served[k] for k in KEYS}

    fake_model.script.text("Still a.py.")
    again = run_cli(
        fake_env,
        tmp_path,
        "run",
        "--continue",
        "-p",
        "and now?",
        "--output-format",
        "json",
        "--permission-mode",
        "bypass",
    )
    assert again.returncode == 0, again.stderr
    resumed = json.loads(again.stdout)
    assert resumed["session_id"] == result["session_id"]
    assert resumed["usage"] == total(fake_model.served_usage)  # restored totals + the new call
