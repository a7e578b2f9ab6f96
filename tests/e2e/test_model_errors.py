"""How model failures read (issue 15): a server that is not there names its URL and the cause;
each retry says why, how long it waits and which attempt it is; in `agent run` and `agent chat`."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.e2e.helpers import run_agent
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic


def closed_port_url() -> str:
    with socket.socket() as s:  # bound, then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_run_names_the_url_and_the_refusal(fake_env: dict[str, str], tmp_path: Path):
    url = closed_port_url()
    proc = run_agent({**fake_env, "ANTHROPIC_BASE_URL": url}, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 1
    final = [line for line in proc.stderr.splitlines() if line.startswith("agent: ")]
    assert final == [
        f"agent: Cannot reach the model at {url}: connection refused (tried 5 times; "
        "check ANTHROPIC_BASE_URL and the network)."
    ]
    retries = [line for line in proc.stderr.splitlines() if "retrying in" in line]
    assert retries == [
        "↻ connection refused: retrying in 0.5 s (1/4)",
        "↻ connection refused: retrying in 1 s (2/4)",
        "↻ connection refused: retrying in 2 s (3/4)",
        "↻ connection refused: retrying in 4 s (4/4)",
    ]
    assert "Traceback" not in proc.stderr


def test_run_shows_each_retry_with_its_status(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    fake_model.script.error(529).error(429).text("recovered")
    proc = run_agent(fake_env, tmp_path, "run", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "recovered"
    retries = [line for line in proc.stderr.splitlines() if "retrying in" in line]
    assert [r.split(": retrying")[0] for r in retries] == ["↻ 529 overloaded", "↻ 429 rate limit"]
    assert retries[1].endswith("(2/4)")


def test_chat_names_the_url_and_the_refusal(fake_env: dict[str, str], tmp_path: Path):
    url = closed_port_url()
    term = ChatTerm({**fake_env, "ANTHROPIC_BASE_URL": url}, tmp_path, columns=140)
    try:
        term.wait_for("you>")
        term.type("hi")
        screen = term.wait_for(f"Cannot reach the model at {url}: connection refused", 60)
        assert "↻ connection refused: retrying in 0.5 s (1/4)" in screen
        assert "APIConnectionError" not in screen
    finally:
        term.close()
