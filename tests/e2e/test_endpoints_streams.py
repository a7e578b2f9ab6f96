"""Issue 52, items 1-3: silent streams asked again, rate limits waited out exactly as the server
asks, and an Ollama-like endpoint (no count_tokens, no models API, no cache usage, thinking
refused, tool calls without ids) served to the end. Every run here is a real `agent run` against
the fake server; waits are read from the server's own request log, never timed here."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.helpers import run_agent
from tests.fake_model import FakeAnthropic
from tests.fake_model.endpoint import OLLAMA_LIKE
from tests.fake_model.server import MESSAGES_PATH

SILENT = 30.0  # how long a stalled reply would stay silent: far past the bound the runs set
BASH_ONCE = "echo ran >> side-effect.log"


def settings_env(env: dict[str, str], **settings: object) -> dict[str, str]:
    return {**env, "AGENT_SETTINGS": json.dumps(settings)}


def message_times(server: FakeAnthropic) -> list[float]:
    return [r.time for r in server.requests if r.path == MESSAGES_PATH]


def retry_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("↻ ")]


def test_a_stream_silent_before_its_first_event_is_asked_again(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.text("never seen", stall_after=0, delay=SILENT).text("the answer")
    env = settings_env(fake_env, stream_idle_timeout_s=1)
    proc = run_agent(env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "the answer"
    assert retry_lines(proc.stderr) == ["↻ stream silent for 1 s: asking again (1/4)"]
    assert len(message_times(fake_model)) == 2


def test_a_tool_call_whose_stream_went_silent_never_runs(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    # message_start, ping, the tool_use's start and its first input delta: then silence
    fake_model.script.tool_use("bash", command=BASH_ONCE, stall_after=4, delay=SILENT)
    fake_model.script.tool_use("bash", command=BASH_ONCE).text("done")
    env = settings_env(fake_env, stream_idle_timeout_s=1)
    proc = run_agent(env, tmp_path, "run", "-p", "run it once")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "side-effect.log").read_text() == "ran\n"  # the half call never ran
    bodies = fake_model.bodies()
    assert len(bodies) == 3
    # the request asked again carries nothing of the half reply
    assert bodies[1]["messages"] == bodies[0]["messages"]
    assert retry_lines(proc.stderr) == ["↻ stream silent for 1 s: asking again (1/4)"]


def test_retry_after_is_waited_exactly_as_asked(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.error(429, retry_after=2).text("after the wait")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert retry_lines(proc.stderr) == ["↻ 429 rate limit: retrying in 2 s (1/4)"]
    first, second = message_times(fake_model)
    # asked again after the 2 s asked, not at once (0.5 s back-off) nor later than one start
    assert 2.0 <= second - first < 2.9


def test_a_wait_longer_than_max_retry_wait_ends_with_one_line(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.error(429, retry_after=20)
    env = settings_env(fake_env, max_retry_wait_s=5)
    proc = run_agent(env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 1
    final = [line for line in proc.stderr.splitlines() if line.startswith("agent: ")]
    assert final == [
        "agent: 429 rate limit: the server asks to wait 20 s, longer than max_retry_wait_s "
        "(5 s); try again later or raise max_retry_wait_s."
    ]
    assert len(message_times(fake_model)) == 1  # not asked early
    assert "Traceback" not in proc.stderr


def test_rate_limited_beyond_the_retries_is_one_line_and_the_session_resumes(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.error(429).error(429).text("resumed")
    env = settings_env(fake_env, max_retries=1)
    proc = run_agent(env, tmp_path, "run", "-p", "first")
    assert proc.returncode == 1
    final = [line for line in proc.stderr.splitlines() if line.startswith("agent: ")]
    assert final == ["agent: Rate limited (429) after retries: fake rate_limit_error (429)"]
    session = re.search(r"resume with: agent run --resume (\S+)\)", proc.stderr)
    assert session is not None, proc.stderr
    again = run_agent(env, tmp_path, "run", "--resume", session.group(1), "-p", "again")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "resumed"
    assert "first" in json.dumps(fake_model.bodies()[-1]["messages"])


def test_an_ollama_like_endpoint_serves_a_whole_run(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.endpoint = OLLAMA_LIKE  # also no models API: the server's default
    fake_model.script.tool_use("bash", command=BASH_ONCE)  # its id: ""
    fake_model.script.tool_use("bash", command="echo two >> side-effect.log")  # no id at all
    fake_model.script.text("done")
    env = settings_env(fake_env, thinking={"budget_tokens": 2048}, web={"search": True})
    proc = run_agent(env, tmp_path, "run", "-p", "work")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
    assert (tmp_path / "side-effect.log").read_text() == "ran\ntwo\n"
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: ")]
    refused = [w for w in warnings if "refuses extended thinking" in w]
    assert len(refused) == 1, warnings
    assert "(thinking: Extra inputs are not permitted): thinking is off" in refused[0]
    assert len([w for w in warnings if "offers no web search" in w]) == 1
    bodies = fake_model.bodies()
    # asked with thinking once, refused; every request after goes without it
    assert [("thinking" in b) for b in bodies] == [True, False, False, False]
    assert all("web_search" not in json.dumps(b.get("tools", [])) for b in bodies)
    ids = [b["id"] for m in bodies[-1]["messages"] for b in m["content"] if b["type"] == "tool_use"]
    assert len(set(ids)) == 2
    assert all(ids)
    assert "Traceback" not in proc.stderr
