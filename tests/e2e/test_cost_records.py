"""Issue 53's first acceptance point: each model call is recorded with its agent, tokens, cost
and, for a miss, its cause, against the fake server's simulated prompt cache, through the real
`agent`: an edited AGENTS.md is `system` naming the instructions, an added MCP server is `tools`
naming it, a compaction is `history`, a call after a gap longer than the TTL is `expired`; the
JSON result's `cache` totals and `hit_ratio` are the server's own sums."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tests.e2e.helpers import json_lines, run_agent
from tests.e2e.mcp_support import stdio_spec
from tests.fake_model import FakeAnthropic
from tests.fake_model.script import Script
from tests.waiting import wait_until


def _run(env: dict[str, str], workspace: Path, *extra: str) -> dict[str, Any]:
    proc = run_agent(env, workspace, "run", "-p", "go on", "--output-format", "json", *extra)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _served(server: FakeAnthropic, start: int) -> tuple[int, int, int]:
    """(uncached, read, write) the server itself counted for the replies from `start` on."""
    served = server.served_usage[start:]
    return (
        sum(u["input_tokens"] for u in served),
        sum(u["cache_read_input_tokens"] for u in served),
        sum(u["cache_creation_input_tokens"] for u in served),
    )


def _matches_server(result: dict[str, Any], server: FakeAnthropic, start: int) -> None:
    uncached, read, write = _served(server, start)
    cache = result["cache"]
    assert (cache["read_tokens"], cache["write_tokens"]) == (read, write)
    assert cache["hit_ratio"] == read / (uncached + read + write)
    assert sum(a["cache_read_tokens"] for a in result["cost_by_agent"]) == read
    assert sum(a["input_tokens"] for a in result["cost_by_agent"]) == uncached


def test_an_edited_agents_md_is_one_system_miss_naming_the_instructions(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("Use tabs.\n")
    fake_model.script.text("first").text("second")
    first = _run(fake_env, tmp_path)
    assert [m["cause"] for m in first["cache"]["misses"]] == ["first"]
    _matches_server(first, fake_model, 0)
    (tmp_path / "AGENTS.md").write_text("Use spaces.\n")
    second = _run(fake_env, tmp_path, "--continue")
    print([t["name"] for t in fake_model.requests[-1].body["tools"]])
    [miss] = second["cache"]["misses"]
    assert (miss["call"], miss["agent"], miss["cause"]) == (2, "main", "system")
    assert "instructions" in miss["detail"]
    _matches_server(second, fake_model, 1)
    assert [a["agent"] for a in second["cost_by_agent"]] == ["main"]


def test_an_unchanged_session_goes_on_without_a_miss(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake_model.script.text("first").text("second")
    _run(fake_env, tmp_path)
    second = _run(fake_env, tmp_path, "--continue")
    assert second["cache"]["misses"] == []
    assert second["cache"]["hit_ratio"] > 0.5
    _matches_server(second, fake_model, 1)


def _until_mcp_tools(mark: Path) -> Callable[[dict[str, Any]], Script | str]:
    """The turn goes on (a glob a round) until the request offers the server's tools: they
    come once it has started, after the first request is on the wire."""

    asked: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> Script | str:
        if any(str(t.get("name", "")).startswith("mcp__testsrv") for t in body.get("tools", [])):
            return "second"
        if asked:  # the first answer lets the servers start: what follows waits for it
            wait_until(mark.exists, timeout=30, what="the MCP server to be started")
        asked.append(body)
        return Script().tool_use("glob", pattern="*.none", delay=0.1)  # its handshake goes on

    return answer


def test_an_added_mcp_server_is_a_tools_miss_naming_its_tools(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake_model.script.text("first")
    _run(fake_env, tmp_path)
    config = Path(fake_env["HOME"]) / ".config" / "agent"  # the user's: no trust asked
    config.mkdir(parents=True)
    mark, spec = tmp_path / "started", stdio_spec()
    command = shlex.join([spec["command"], *spec["args"]])
    server = {"command": "sh", "args": ["-c", f"touch {shlex.quote(str(mark))}; exec {command}"]}
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {"testsrv": server}}))
    fake_model.script.respond(_until_mcp_tools(mark), times=95)
    second = _run(fake_env, tmp_path, "--continue")
    misses = second["cache"]["misses"]
    # a slow start means many rounds, which may ask the episode writer: its own first call
    assert all(m["cause"] == "first" for m in misses if m["agent"] != "main"), misses
    [miss] = [m for m in misses if m["agent"] == "main"]
    assert miss["cause"] == "tools", misses
    assert miss["detail"].startswith("added mcp__testsrv"), miss["detail"]
    _matches_server(second, fake_model, 1)


def test_a_compaction_is_a_history_miss(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake_model.script.text("first")
    _run(fake_env, tmp_path)
    fake_model.script.tool_use("compact").text("The summary.").text("after")
    second = _run(fake_env, tmp_path, "--continue")
    causes = [(m["agent"], m["cause"]) for m in second["cache"]["misses"]]
    assert ("main", "history") in causes, second["cache"]
    _matches_server(second, fake_model, 1)


def _shift_calls(transcript: Path, seconds: float) -> None:
    """The session's judged calls as if made `seconds` earlier (the agent's clock reading is
    kept in the transcript; the run after it reads the time since)."""
    lines = []
    for line in transcript.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "call":
            at = datetime.fromisoformat(record["at"]) - timedelta(seconds=seconds)
            record["at"] = at.isoformat(timespec="milliseconds")
        lines.append(json.dumps(record))
    transcript.write_text("\n".join(lines) + "\n")


def test_a_call_after_the_ttl_is_an_expired_miss_and_sessions_show_cost_lists_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    now = [1000.0]
    fake_model.cache.clock = lambda: now[0]
    fake_model.script.text("first").text("second")
    first = _run(fake_env, tmp_path)
    now[0] += 301  # past the 5-minute TTL on the server's clock...
    [transcript] = tmp_path.rglob(f".transcripts/{first['session_id']}.jsonl")
    _shift_calls(transcript, 301)  # ...and on the agent's
    second = _run(fake_env, tmp_path, "--continue")
    print([t["name"] for t in fake_model.requests[-1].body["tools"]])
    [miss] = second["cache"]["misses"]
    assert (miss["call"], miss["agent"], miss["cause"]) == (2, "main", "expired")
    _matches_server(second, fake_model, 1)
    shown = run_agent(fake_env, tmp_path, "sessions", "show", first["session_id"], "--cost")
    assert shown.returncode == 0, shown.stderr
    assert "call 1 main first" in shown.stdout
    assert "call 2 main expired" in shown.stdout
    assert shown.stdout.splitlines()[1].split()[:2] == ["main", "2"]


def test_each_call_s_log_line_names_its_agent_and_cause(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    fake_model.script.text("first")
    _run(fake_env, tmp_path)
    [log] = tmp_path.rglob("logs/llm-calls.jsonl")
    [line] = json_lines(log.read_text())
    assert (line["agent"], line["call"], line["cause"]) == ("main", 1, "first")
