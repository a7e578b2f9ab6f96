"""How model failures read (issue 15): a server that is not there names its URL and the cause;
each retry says why, how long it waits and which attempt it is; in `agent run` and `agent chat`.
And an `agent run` stopped mid-reply keeps what streamed, with the user's marker."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

from agent_cli.core.history import USER_INTERRUPTED
from tests.e2e.helpers import REPO, run_agent
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic
from tests.fake_model.wire import split


def closed_port_url() -> str:
    """The address of a fake model server that has been stopped: nothing listens there now."""
    with FakeAnthropic() as server:
        url = server.base_url.rstrip("/")
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", int(url.rsplit(":", 1)[1]))) != 0  # really gone
    return url


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


def test_run_interrupted_mid_reply_keeps_the_partial_text_and_the_marker(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    reply = "Partial words, then the rest"
    fake_model.script.text(reply, stall_after=4, delay=60)  # one chunk, then a long wait
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_cli", "run", "-p", "slow please",
         "--output-format", "stream-json"],
        cwd=tmp_path, env={**fake_env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # until the first chunk of the reply streamed out
            if json.loads(line).get("type") == "text":
                break
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    fake_model.script.text("the rest, then")
    resumed = run_agent(fake_env, tmp_path, "run", "--continue", "-p", "go on")
    assert resumed.returncode == 0, resumed.stderr
    second = fake_model.bodies()[-1]  # checked against SPEC §16 by the fake server
    said = [
        (m["role"], b["text"])
        for m in second["messages"]
        for b in m["content"]
        if b["type"] == "text"
    ]
    assert said == [
        ("user", "slow please"),
        ("assistant", split(reply)[0]),
        ("user", USER_INTERRUPTED),
        ("user", "go on"),
    ]
